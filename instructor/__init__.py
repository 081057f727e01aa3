"""Instructor tools: the student edition (student.py) and the grader (grade.py)."""
