"""Mutation analysis of the exercises' checks (`grader mutate`): see `grader.mutate.engine`."""
