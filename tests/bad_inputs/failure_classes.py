# Prints the failure class of every failed, errored or xfailed result in the
# meshtest SQLite stores given, one "DB TEST_ID OUTCOME CLASS" line each, for
# bad_inputs_test: every error a catalogued bad input records must have a
# class (reports/failure_classes.h), never UNCLASSIFIED or none.
import sqlite3
import sys

for db in sys.argv[1:]:
    try:
        rows = sqlite3.connect(db).execute(
            "SELECT test_id, outcome, failure_class FROM results WHERE outcome IN ('failed', 'error', 'xfailed')")
        for test_id, outcome, failure_class in rows:
            print(f"{db} {test_id} {outcome} {failure_class or '<none>'}")
    except sqlite3.DatabaseError:
        pass  # not a results store (results_db_corrupt), or one without results
