"""The instructor kit: hand-outs, collecting an LMS download, and grading with the
checks apart from the student's code (grade, runner, channel, sandbox, scan)."""
