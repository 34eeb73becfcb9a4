def add_feature_bias(x, bias)
    return x
