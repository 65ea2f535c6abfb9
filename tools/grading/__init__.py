"""Classroom grading: exercise format (master), sandbox, runner and judge, class folder handling."""
