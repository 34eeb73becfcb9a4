def add_feature_bias(x, bias):
    while True:
        print("x" * 10000)
add_sample_bias = pairwise_sq_dists = add_feature_bias
