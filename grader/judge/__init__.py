"""The trusted judge: a pytest session over an exercise's checks, with the grader's plugin."""
