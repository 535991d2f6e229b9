// The region SQLite file's person tables (person-store.ts), as region-store.ts's migrations
// create them: version 3 made them, versions 4 and 7 changed them.

export const personSchema = `
  CREATE TABLE persons (
    project_id TEXT NOT NULL,
    person_index INTEGER NOT NULL,
    id TEXT NOT NULL UNIQUE,
    properties TEXT NOT NULL,
    stamps TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    is_identified INTEGER NOT NULL,
    version INTEGER NOT NULL,
    merged_into INTEGER,
    PRIMARY KEY (project_id, person_index)
  );
  CREATE TABLE person_distinct_ids (
    project_id TEXT NOT NULL,
    distinct_id TEXT NOT NULL,
    person_index INTEGER NOT NULL,
    PRIMARY KEY (project_id, distinct_id)
  );
  CREATE INDEX person_distinct_ids_by_person ON person_distinct_ids (project_id, person_index);
  CREATE TABLE person_overrides (
    project_id TEXT NOT NULL,
    old_index INTEGER NOT NULL,
    new_index INTEGER NOT NULL,
    PRIMARY KEY (project_id, old_index)
  );
  CREATE TABLE identity_log (
    project_id TEXT NOT NULL,
    event_uuid TEXT NOT NULL,
    kind TEXT NOT NULL,
    at INTEGER NOT NULL,
    survivor INTEGER NOT NULL,
    absorbed INTEGER NOT NULL,
    PRIMARY KEY (project_id, event_uuid, kind)
  );
  CREATE TABLE group_types (
    project_id TEXT NOT NULL,
    group_index INTEGER NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (project_id, group_index),
    UNIQUE (project_id, name)
  );
  CREATE TABLE groups (
    project_id TEXT NOT NULL,
    group_index INTEGER NOT NULL,
    group_key TEXT NOT NULL,
    properties TEXT NOT NULL,
    stamps TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, group_index, group_key)
  );
`;

/**
 * v4: each distinct id remembers the person it first belonged to (so an unmerge can send that
 * person's old events back with it), overrides are found by survivor, and the catalog's
 * personal-data property names are kept per project.
 */
export const personSchemaV4 = `
  ALTER TABLE person_distinct_ids ADD COLUMN first_person_index INTEGER;
  UPDATE person_distinct_ids SET first_person_index = person_index;
  CREATE INDEX person_overrides_by_survivor ON person_overrides (project_id, new_index);
  CREATE TABLE pii_properties (
    project_id TEXT NOT NULL,
    name TEXT NOT NULL,
    PRIMARY KEY (project_id, name)
  );
`;

/**
 * v7: each read of one person's rows finds them through an index that also gives them in the
 * order asked, so it costs what that person has rather than what the project has: a person's
 * distinct ids (sorted), the ids a person first had (unmerge), the persons merged into a
 * survivor (sorted), and the identity log by either side. Before, `ORDER BY distinct_id` made
 * SQLite walk the whole project's primary key for each person on a page or merged at ingest.
 */
export const personSchemaV7 = `
  DROP INDEX person_distinct_ids_by_person;
  CREATE INDEX person_distinct_ids_by_person ON person_distinct_ids (project_id, person_index, distinct_id);
  CREATE INDEX person_distinct_ids_by_first_person ON person_distinct_ids (project_id, first_person_index);
  DROP INDEX person_overrides_by_survivor;
  CREATE INDEX person_overrides_by_survivor ON person_overrides (project_id, new_index, old_index);
  CREATE INDEX identity_log_by_survivor ON identity_log (project_id, survivor);
  CREATE INDEX identity_log_by_absorbed ON identity_log (project_id, absorbed);
`;
