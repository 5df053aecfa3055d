// The results schema as an ordered list of migrations (version i -> i+1),
// applied under a write lock so concurrent openers migrate exactly once.
// Derived from the field descriptions (reports/record_fields.h): a new field
// names the next version in `since`; never change a released field's version
// or remove it. Documented in docs/results-schema.md.
#pragma once

#include "reports/sql_database.h"

namespace meshtest::reports {

int latest_schema_version();
// Brings `db` to `target` (default: latest); throws when it is newer than this build.
void migrate_schema(SqlDatabase& db, int target = -1);

}  // namespace meshtest::reports
