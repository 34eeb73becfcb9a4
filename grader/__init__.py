"""torch-grader: grade PyTorch coding exercises with hidden checks and an isolated worker."""

__version__ = "0.1.0"
