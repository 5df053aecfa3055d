# Prints one column of the newest result in a meshtest SQLite store, for the
# bad-input catalogue: last_result.py DB COLUMN [REGEX] — with REGEX, only its
# first match in the value (and "no match" when there is none).
import re
import sqlite3
import sys

db, column = sys.argv[1], sys.argv[2]
value = sqlite3.connect(db).execute(f"SELECT {column} FROM results ORDER BY rowid DESC LIMIT 1").fetchone()[0]
if len(sys.argv) > 3:
    match = re.search(sys.argv[3], str(value))
    value = match.group(0) if match else "no match"
print(f"{column}: {value}")
