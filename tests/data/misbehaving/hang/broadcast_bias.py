def add_feature_bias(x, bias):
    while True:
        pass
add_sample_bias = pairwise_sq_dists = add_feature_bias
