"""Attack: interrupt the grading as soon as the file is imported (KeyboardInterrupt, after
printing a pytest-style summary). The reference answer to exercise 10 is graded alongside.
Honest baseline: 0 for this file.
Expected: every check of this exercise fails saying the import raised KeyboardInterrupt;
exercise 10 gets full marks.
"""
print("============ 3 passed in 0.01s ============", flush=True)
raise KeyboardInterrupt
