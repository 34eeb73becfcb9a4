"""Practice mode for candidates working through a bundle: `grader watch`, hints, status, reset.

- `hints`: each exercise's progressive hints (its `hints.md`);
- `state`: the bundle's small state file (status per exercise, hints used) and the opt-in
  progress record (`grader export --record-progress`);
- `reset`: restore an exercise's stub, keeping a backup of the candidate's file;
- `server` / `session`: a warm judge (pytest and torch imported, fork server running) that forks
  one child per rerun, so a save is graded in well under a second;
- `watch`: the loop: file watching (watchfiles), keys, the screen or plain output.
"""
