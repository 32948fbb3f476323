#include "core_schema.hpp"

#include "log/activity_log.hpp"
#include "store/keyring.hpp"

namespace signet {

namespace {
// The triggers that bump directory_generation on every write to `table` (its updates only of
// `updateOf`'s columns, when given).
std::vector<std::string> generationTriggers(const std::string& table, const std::string& updateOf) {
  const std::string bump = "UPDATE directory_generation SET value = value + 1 WHERE id = 1";
  std::vector<std::string> out;
  std::string update = updateOf.empty() ? "UPDATE" : "UPDATE OF " + updateOf;
  for (const std::string event : {"INSERT", "DELETE", update.c_str()}) {
    std::string name = "directory_generation_" + table + "_" + event.substr(0, 6);
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.push_back("sqlite: CREATE TRIGGER " + name + " AFTER " + event + " ON " + table +
                  " BEGIN " + bump + "; END");
  }
  out.push_back("postgresql: CREATE TRIGGER directory_generation_" + table +
                " AFTER INSERT OR DELETE OR " + update + " ON " + table +
                " FOR EACH STATEMENT EXECUTE FUNCTION signet_directory_changed()");
  return out;
}

// directory_generation: one number that every write to the directory's tables bumps, by
// triggers, so that no write path can forget it; DirectoryCache (tenancy/directory_cache.hpp)
// serves an entry only to a request that read the number it was made at. An authenticator's
// sign counter, updated by every passkey-stamped request, is not something the cache holds, so
// updates of it alone leave the number be.
Migration directoryGeneration(int version) {
  struct Watched {
    const char* table;
    const char* updateOf;  // the columns whose updates count; empty: all
  };
  const Watched watched[] = {
      {"organizations", ""},
      {"users", ""},
      {"api_keys", ""},
      {"authenticators",
       "id, organization_id, user_id, name, credential_id, algorithm, public_key, rsa_exponent, "
       "aaguid, transports, attestation_type, created_at_ms, updated_at_ms"},
      {"root_quorum_members", ""},
      {"user_tag_members", ""},
      {"oauth_providers", ""},
      {"mfa_policies", ""},
  };
  const std::string bump = "UPDATE directory_generation SET value = value + 1 WHERE id = 1";
  Migration m{version,
              "directory_generation, bumped by triggers on every write to the directory",
              {"CREATE TABLE directory_generation (id INTEGER PRIMARY KEY, value BIGINT NOT NULL)",
               "INSERT INTO directory_generation (id, value) VALUES (1, 0)",
               "postgresql: CREATE FUNCTION signet_directory_changed() RETURNS trigger LANGUAGE "
               "plpgsql AS $$ BEGIN " +
                   bump + "; RETURN NULL; END $$"}};
  for (const auto& w : watched)
    for (auto& statement : generationTriggers(w.table, w.updateOf))
      m.statements.push_back(std::move(statement));
  return m;
}

// The activity log (gateway/log/activity_log.hpp):
// - its leaves, each pointing at the activity's previous one (an activity points at its last,
//   log_index); migration 27 replaced the pointers with an index of the leaves by activity;
// - the hash of every complete subtree, leaves included, in the order an append makes them (what
//   a proof reads);
// - the head (size and right edge, the lock appends take);
// - the checkpoints issued (with their witnesses' cosignatures) and the size each witness last
//   cosigned;
// - the changes still to append. Only the gateway's own connections note changes
//   (activity_log::writerSetup): on SQLite with triggers of their own, on PostgreSQL with a
//   trigger that notes only for sessions that say they are the gateway's.
// A store that has activities already notes them all, oldest first: the gateway appends them
// when it starts. A later migration that changes rows of `activities` must note them the same
// way (INSERT INTO activity_log_pending), since migrations run before the gateway's hooks.
Migration activityLog(int version) {
  return {version,
          "the activity log: an append-only Merkle tree of every state an activity is committed "
          "in",
          {"sqlite: CREATE TABLE activity_log_pending (seq INTEGER PRIMARY KEY, activity_id TEXT "
           "NOT NULL)",
           "postgresql: CREATE TABLE activity_log_pending (seq BIGSERIAL PRIMARY KEY, "
           "activity_id TEXT NOT NULL)",
           "CREATE TABLE activity_log_leaves (idx BIGINT PRIMARY KEY, activity_id TEXT NOT NULL, "
           "previous_idx BIGINT, leaf TEXT NOT NULL, appended_at_ms BIGINT NOT NULL)",
           "CREATE TABLE activity_log_nodes (idx BIGINT PRIMARY KEY, hash TEXT NOT NULL)",
           "ALTER TABLE activities ADD COLUMN log_index BIGINT",
           "CREATE TABLE activity_log_head (id INTEGER PRIMARY KEY, size BIGINT NOT NULL, "
           "frontier TEXT NOT NULL)",
           "INSERT INTO activity_log_head (id, size, frontier) VALUES (1, 0, '')",
           "CREATE TABLE activity_log_checkpoints (size BIGINT PRIMARY KEY, root TEXT NOT NULL, "
           "issued_at_ms BIGINT NOT NULL, note TEXT NOT NULL)",
           "CREATE TABLE activity_log_witnesses (verifier_key TEXT PRIMARY KEY, size BIGINT NOT "
           "NULL)",
           "postgresql: CREATE FUNCTION signet_activity_changed() RETURNS trigger LANGUAGE "
           "plpgsql AS $$ BEGIN IF current_setting('signet.activity_log', true) = 'on' THEN "
           "INSERT INTO activity_log_pending (activity_id) VALUES (CASE WHEN TG_OP = 'DELETE' "
           "THEN OLD.id ELSE NEW.id END); END IF; RETURN NULL; END $$",
           std::string("postgresql: CREATE TRIGGER activity_log_note AFTER INSERT OR DELETE OR "
                       "UPDATE OF ") +
               activity_log::kLeafColumns +
               " ON activities FOR EACH ROW EXECUTE FUNCTION signet_activity_changed()",
           "INSERT INTO activity_log_pending (activity_id) SELECT id FROM activities ORDER BY "
           "created_at_ms, id"}};
}

// The activity log's notes carry each change's leaf, made by the store from the row as the
// change wrote it (activity_log::leafSql), and the activity's last leaf before it (until
// migration 27 dropped it from the trigger): the append takes them with the notes instead of
// reading every noted activity back, a round trip of each batch on PostgreSQL. Notes made without
// them (by this or an earlier migration) are read back as before. Gateways of the earlier release,
// during a rolling upgrade, take notes by their columns and ignore the new ones (their sessions pay
// for the leaf's hashing all the same). The leaf's text is version 1 of its format, fixed: another
// format would be another migration. SQLite's triggers are the gateway's own (writerSetup), made on
// each of its connections.
Migration activityLogNotesCarryLeaves(int version) {
  return {version,
          "the activity log's notes carry the leaf the store makes of each change",
          {"ALTER TABLE activity_log_pending ADD COLUMN leaf TEXT",
           "ALTER TABLE activity_log_pending ADD COLUMN previous_idx BIGINT",
           "postgresql: CREATE OR REPLACE FUNCTION signet_activity_changed() RETURNS trigger "
           "LANGUAGE plpgsql AS $$ BEGIN IF current_setting('signet.activity_log', true) = 'on' "
           "THEN IF TG_OP = 'DELETE' THEN INSERT INTO activity_log_pending (activity_id, leaf) "
           "VALUES (OLD.id, " +
               activity_log::tombstoneSql("OLD") +
               "); ELSE INSERT INTO activity_log_pending (activity_id, leaf, previous_idx) VALUES "
               "(NEW.id, " +
               activity_log::leafSql(true, "NEW") +
               ", NEW.log_index); END IF; END IF; RETURN NULL; END $$"}};
}

// An activity's leaves are found through an index of the leaves by activity, in place of the
// pointers of migration 21 (the activity's `log_index` to its last leaf, each leaf's
// `previous_idx` to the one before): keeping the pointer meant rewriting every activity's row
// in the append, on the one thread that commits, about 16,000 instructions a signature
// (docs/performance.md, the tenth measure). Activity ids are time-ordered (crypto::uuidV7), so a
// batch's entries land on the index's last page. SQLite keys the leaves by the rowid, which
// every index entry carries: the index is by activity alone there.
// The pointers' columns stay, unwritten from here on: gateways of the earlier release still
// write and read them during a rolling upgrade on PostgreSQL (docs/operations.md#upgrade). The
// PostgreSQL trigger is replaced so that its notes no longer read `log_index`; its leaf is the
// same text (activity_log::leafSql, version 1 of the format).
Migration activityLogLeavesByActivity(int version) {
  return {version,
          "the activity log's leaves indexed by activity, in place of the activities' pointers",
          {"sqlite: CREATE INDEX activity_log_leaves_activity ON activity_log_leaves "
           "(activity_id)",
           "postgresql: CREATE INDEX activity_log_leaves_activity ON activity_log_leaves "
           "(activity_id, idx)",
           "postgresql: CREATE OR REPLACE FUNCTION signet_activity_changed() RETURNS trigger "
           "LANGUAGE plpgsql AS $$ BEGIN IF current_setting('signet.activity_log', true) = 'on' "
           "THEN IF TG_OP = 'DELETE' THEN INSERT INTO activity_log_pending (activity_id, leaf) "
           "VALUES (OLD.id, " +
               activity_log::tombstoneSql("OLD") +
               "); ELSE INSERT INTO activity_log_pending (activity_id, leaf) VALUES (NEW.id, " +
               activity_log::leafSql(true, "NEW") + "); END IF; END IF; RETURN NULL; END $$"}};
}

// IP allowlists (tenancy/ip_allowlists.hpp): an organization's own (public_key '') and its keys'.
// Read by every request an API key stamps, through the directory cache, so the table bumps its
// generation.
Migration ipAllowlists(int version) {
  Migration m{version,
              "IP allowlists of organizations and API keys",
              {"CREATE TABLE ip_allowlists (organization_id TEXT NOT NULL, public_key TEXT NOT "
               "NULL, enabled INTEGER, on_evaluation_error TEXT NOT NULL, rules TEXT NOT NULL, "
               "updated_at_ms BIGINT NOT NULL, PRIMARY KEY (organization_id, public_key))"}};
  for (auto& statement : generationTriggers("ip_allowlists", ""))
    m.statements.push_back(std::move(statement));
  return m;
}

// Puts `rebuilt`, already created with the columns `definitions` lists in order (each as
// "name TYPE ..."), in the place of `table`, with its rows. `store` limits the statements to one
// store ("sqlite: ") or is empty for both.
void replaceTable(Migration& m, const std::string& table, const std::string& rebuilt,
                  const std::vector<std::string>& definitions, const std::string& store) {
  std::string columns;
  for (const auto& d : definitions)
    columns += (columns.empty() ? "" : ", ") + d.substr(0, d.find(' '));
  m.statements.push_back(store + "INSERT INTO " + rebuilt + " (" + columns + ") SELECT " + columns +
                         " FROM " + table);
  m.statements.push_back(store + "DROP TABLE " + table);  // and its indexes with it
  m.statements.push_back(store + "ALTER TABLE " + rebuilt + " RENAME TO " + table);
}

std::string typedColumns(const std::vector<std::string>& definitions) {
  std::string typed;
  for (const auto& d : definitions) typed += (typed.empty() ? "" : ", ") + d;
  return typed;
}

// A table of rows that are only ever read by their activity, rebuilt with the activity first in
// its primary key. On SQLite it becomes WITHOUT ROWID, so the key is the table: one b-tree
// instead of three (rows, the old key's index, the activity index), and fewer pages for the
// commit of each signature to write and sync. On PostgreSQL the heap stays, with one index in
// place of two.
void rebuildKeyedByActivity(Migration& m, const std::string& table,
                            const std::vector<std::string>& definitions, const std::string& key) {
  const std::string rebuilt = table + "_by_activity";
  const std::string create =
      "CREATE TABLE " + rebuilt + " (" + typedColumns(definitions) + ", PRIMARY KEY (" + key + "))";
  m.statements.push_back("sqlite: " + create + " WITHOUT ROWID");
  m.statements.push_back("postgresql: " + create);
  replaceTable(m, table, rebuilt, definitions, "");
}

// The activity log's leaves and subtree hashes, on SQLite keyed by the rowid itself. Only
// "INTEGER PRIMARY KEY" is the rowid there: migration 21's BIGINT key was a second b-tree beside
// the rows, two more pages for each commit to write. PostgreSQL keeps its tables.
Migration activityLogByRowid(int version) {
  Migration m{
      version, "the activity log's leaves and subtree hashes keyed by the rowid on SQLite", {}};
  const std::vector<std::pair<std::string, std::vector<std::string>>> tables = {
      {"activity_log_leaves",
       {"idx INTEGER PRIMARY KEY", "activity_id TEXT NOT NULL", "previous_idx BIGINT",
        "leaf TEXT NOT NULL", "appended_at_ms BIGINT NOT NULL"}},
      {"activity_log_nodes", {"idx INTEGER PRIMARY KEY", "hash TEXT NOT NULL"}}};
  for (const auto& [table, definitions] : tables) {
    const std::string rebuilt = table + "_by_rowid";
    m.statements.push_back("sqlite: CREATE TABLE " + rebuilt + " (" + typedColumns(definitions) +
                           ")");
    replaceTable(m, table, rebuilt, definitions, "sqlite: ");
  }
  return m;
}

Migration keyedByActivity(int version) {
  Migration m{version,
              "policy evaluations and MFA presentations keyed by their activity first, one "
              "b-tree each on SQLite",
              {}};
  rebuildKeyedByActivity(
      m, "policy_evaluations",
      {"activity_id TEXT NOT NULL", "id TEXT NOT NULL", "organization_id TEXT NOT NULL",
       "vote_id TEXT NOT NULL", "evaluations TEXT NOT NULL", "created_at_ms BIGINT NOT NULL"},
      "activity_id, id");
  rebuildKeyedByActivity(
      m, "mfa_presentations",
      {"activity_id TEXT NOT NULL", "vote_id TEXT NOT NULL", "user_id TEXT NOT NULL",
       "method_type TEXT NOT NULL", "method_id TEXT NOT NULL", "created_at_ms BIGINT NOT NULL"},
      "activity_id, vote_id");
  return m;
}
// The one-record activity: each vote's policy evaluation and MFA presentation move into the
// activity's row (activity/activity_store.hpp), so that a signature writes one row of its own.
// The rows of the earlier tables are copied, in the order they were read in, and left where
// they were: during a rolling upgrade on PostgreSQL, gateways still on the earlier release
// write and read them there, and a row they write (its columns here NULL) is read from them.
// Only the new columns are written, so the activity log notes nothing (its triggers watch the
// leaf's columns) and no leaf changes.
Migration oneRecordActivities(int version) {
  return {
      version,
      "each activity's policy evaluations and MFA presentations inside its row",
      {"ALTER TABLE activities ADD COLUMN evaluations TEXT",
       "ALTER TABLE activities ADD COLUMN presentations TEXT",
       // SQLite 3.40 (Debian 12) has no ORDER BY inside an aggregate: the rows come ordered
       // from a subquery, and json() keeps each object JSON as it passes through it.
       "sqlite: UPDATE activities SET evaluations = (SELECT json_group_array(json(e)) FROM "
       "(SELECT json_object('id', id, 'voteId', vote_id, 'evaluations', json(evaluations), "
       "'createdAtMs', created_at_ms) AS e FROM policy_evaluations p WHERE p.activity_id = "
       "activities.id ORDER BY created_at_ms, id)), presentations = (SELECT "
       "json_group_array(json(m)) FROM (SELECT json_object('voteId', vote_id, 'userId', "
       "user_id, 'methodType', method_type, 'methodId', method_id) AS m FROM mfa_presentations "
       "p WHERE p.activity_id = activities.id ORDER BY created_at_ms, vote_id))",
       "postgresql: UPDATE activities a SET evaluations = COALESCE((SELECT "
       "json_agg(json_build_object('id', id, 'voteId', vote_id, 'evaluations', "
       "evaluations::json, 'createdAtMs', created_at_ms) ORDER BY created_at_ms, id)::text FROM "
       "policy_evaluations p WHERE p.activity_id = a.id), '[]'), presentations = "
       "COALESCE((SELECT json_agg(json_build_object('voteId', vote_id, 'userId', user_id, "
       "'methodType', method_type, 'methodId', method_id) ORDER BY created_at_ms, "
       "vote_id)::text FROM mfa_presentations p WHERE p.activity_id = a.id), '[]')"}};
}
// The voters of votes, referenced by digest instead of copied into each vote
// (activity/vote_users.hpp). SQLite, whose one writer never races itself: one b-tree keyed by
// organization and digest. PostgreSQL: an index that is not unique, so that concurrent batches
// writing the same new copy never wait on each other (vote_users::writeUsers). Votes already
// stored keep their copies until their activity is next written: rewriting them here would
// change the activity log's leaves.
Migration voteUsers(int version) {
  const std::string columns =
      "organization_id TEXT NOT NULL, digest TEXT NOT NULL, user_json TEXT NOT NULL";
  return {version,
          "the voters of votes, each kept once per organization and content",
          {"sqlite: CREATE TABLE vote_users (" + columns +
               ", PRIMARY KEY (organization_id, digest)) WITHOUT ROWID",
           "postgresql: CREATE TABLE vote_users (" + columns + ")",
           "postgresql: CREATE INDEX vote_users_digest ON vote_users (organization_id, digest)"}};
}
}  // namespace

std::vector<Migration> coreMigrations() {
  return {
      {1,
       "organizations, users, root quorum",
       {"CREATE TABLE organizations (id TEXT PRIMARY KEY, name TEXT NOT NULL, parent_id TEXT, "
        "root_quorum_threshold INTEGER NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms "
        "BIGINT NOT NULL)",
        "CREATE INDEX organizations_parent ON organizations (parent_id)",
        "CREATE TABLE users (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, name TEXT NOT "
        "NULL, email TEXT, phone_number TEXT, created_at_ms BIGINT NOT NULL, updated_at_ms "
        "BIGINT NOT NULL)",
        "CREATE INDEX users_organization ON users (organization_id)",
        "CREATE TABLE root_quorum_members (organization_id TEXT NOT NULL, user_id TEXT NOT "
        "NULL, PRIMARY KEY (organization_id, user_id))"}},
      {2,
       "credentials: API keys and WebAuthn authenticators",
       {"CREATE TABLE api_keys (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, user_id "
        "TEXT NOT NULL, name TEXT NOT NULL, public_key TEXT NOT NULL, curve TEXT NOT NULL, "
        "credential_type TEXT NOT NULL, expires_at_ms BIGINT, created_at_ms BIGINT NOT NULL, "
        "updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX api_keys_organization_key ON api_keys (organization_id, public_key)",
        "CREATE INDEX api_keys_public_key ON api_keys (public_key)",
        "CREATE INDEX api_keys_user ON api_keys (user_id)",
        "CREATE TABLE authenticators (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
        "user_id TEXT NOT NULL, name TEXT NOT NULL, credential_id TEXT NOT NULL, algorithm "
        "INTEGER NOT NULL, public_key TEXT NOT NULL, rsa_exponent TEXT, aaguid TEXT NOT NULL, "
        "transports TEXT NOT NULL, attestation_type TEXT NOT NULL, sign_count BIGINT NOT NULL, "
        "created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX authenticators_organization_credential ON authenticators "
        "(organization_id, credential_id)",
        "CREATE INDEX authenticators_credential ON authenticators (credential_id)",
        "CREATE INDEX authenticators_user ON authenticators (user_id)"}},
      {3,
       "activities",
       {"CREATE TABLE activities (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, type TEXT "
        "NOT NULL, status TEXT NOT NULL, fingerprint TEXT NOT NULL, intent TEXT NOT NULL, result "
        "TEXT, votes TEXT NOT NULL, failure TEXT, app_proofs TEXT, created_at_ms BIGINT NOT "
        "NULL, updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX activities_fingerprint ON activities (fingerprint)",
        "CREATE INDEX activities_organization_created ON activities (organization_id, "
        "created_at_ms, id)"}},
      keyringMigration(4),
      {5,
       "gateway settings (the signer's public key and other singletons)",
       {"CREATE TABLE gateway_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)"}},
      {6,
       "tenancy: organization flags and features, verified contacts, user tags, OAuth "
       "providers, spent verification tokens",
       {"ALTER TABLE organizations ADD COLUMN disable_email_recovery INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE organizations ADD COLUMN disable_email_auth INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE organizations ADD COLUMN disable_sms_auth INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE organizations ADD COLUMN disable_otp_email_auth INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0",
        "ALTER TABLE users ADD COLUMN phone_number_verified INTEGER NOT NULL DEFAULT 0",
        "CREATE INDEX users_email ON users (email)",
        "CREATE INDEX users_phone_number ON users (phone_number)",
        "CREATE TABLE organization_features (organization_id TEXT NOT NULL, name TEXT NOT NULL, "
        "value TEXT NOT NULL, PRIMARY KEY (organization_id, name))",
        "CREATE TABLE user_tags (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, name TEXT "
        "NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX user_tags_organization_name ON user_tags (organization_id, name)",
        "CREATE TABLE user_tag_members (tag_id TEXT NOT NULL, user_id TEXT NOT NULL, PRIMARY KEY "
        "(tag_id, user_id))",
        "CREATE INDEX user_tag_members_user ON user_tag_members (user_id)",
        "CREATE TABLE oauth_providers (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
        "user_id TEXT NOT NULL, name TEXT NOT NULL, issuer TEXT NOT NULL, audience TEXT NOT "
        "NULL, subject TEXT NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT "
        "NULL)",
        "CREATE INDEX oauth_providers_user ON oauth_providers (organization_id, user_id)",
        "CREATE INDEX oauth_providers_identity ON oauth_providers (issuer, subject)",
        "CREATE TABLE spent_verification_tokens (id TEXT PRIMARY KEY, spent_at_ms BIGINT NOT "
        "NULL)"}},
      {7,
       "policies and their evaluations",
       {"CREATE TABLE policies (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, name TEXT NOT "
        "NULL, effect TEXT NOT NULL, condition_expr TEXT NOT NULL, consensus_expr TEXT NOT NULL, "
        "notes TEXT NOT NULL, created_at_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX policies_organization_name ON policies (organization_id, name)",
        "CREATE TABLE policy_evaluations (id TEXT PRIMARY KEY, activity_id TEXT NOT NULL, "
        "organization_id TEXT NOT NULL, vote_id TEXT NOT NULL, evaluations TEXT NOT NULL, "
        "created_at_ms BIGINT NOT NULL)",
        "CREATE INDEX policy_evaluations_activity ON policy_evaluations (activity_id)"}},
      {8,
       "whether an activity asked for app proofs (kept for activities run after consensus)",
       {"ALTER TABLE activities ADD COLUMN generate_app_proofs INTEGER NOT NULL DEFAULT 0"}},
      {9,
       "a policy's time expression (empty: always active)",
       {"ALTER TABLE policies ADD COLUMN time_expr TEXT NOT NULL DEFAULT ''"}},
      {10,
       "a token that changes with every write to an organization's policies, so gateways can "
       "keep its parsed policy set until it does",
       {"ALTER TABLE organizations ADD COLUMN policy_version TEXT NOT NULL DEFAULT ''"}},
      {11,
       "MFA policies, what each vote's stamp proved, each activity's MFA status, and the session "
       "profile a session key was issued under",
       {"CREATE TABLE mfa_policies (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, user_id "
        "TEXT NOT NULL, name TEXT NOT NULL, condition_expr TEXT NOT NULL, required_methods TEXT "
        "NOT "
        "NULL, eval_order BIGINT NOT NULL, notes TEXT NOT NULL, created_at_ms BIGINT NOT NULL, "
        "updated_at_ms BIGINT NOT NULL)",
        "CREATE UNIQUE INDEX mfa_policies_user_name ON mfa_policies (user_id, name)",
        "CREATE TABLE mfa_presentations (vote_id TEXT PRIMARY KEY, activity_id TEXT NOT NULL, "
        "user_id TEXT NOT NULL, method_type TEXT NOT NULL, method_id TEXT NOT NULL, created_at_ms "
        "BIGINT NOT NULL)",
        "CREATE INDEX mfa_presentations_activity ON mfa_presentations (activity_id)",
        "CREATE TABLE mfa_statuses (activity_id TEXT NOT NULL, user_id TEXT NOT NULL, "
        "organization_id TEXT NOT NULL, status TEXT NOT NULL, PRIMARY KEY (activity_id, "
        "user_id))",
        "ALTER TABLE api_keys ADD COLUMN session_profile_id TEXT"}},
      {12,
       "operator overrides of activity versions' rollout states (signet rollout set)",
       {"CREATE TABLE activity_rollouts (activity_type TEXT PRIMARY KEY, state TEXT NOT NULL, "
        "organization_ids TEXT NOT NULL, percent INTEGER NOT NULL, replacement TEXT NOT NULL, "
        "sunset_ms BIGINT NOT NULL, updated_at_ms BIGINT NOT NULL)"}},
      {13,
       "invitations to join an organization",
       {"CREATE TABLE invitations (id TEXT PRIMARY KEY, organization_id TEXT NOT NULL, "
        "sender_user_id TEXT NOT NULL, receiver_user_name TEXT NOT NULL, receiver_email TEXT NOT "
        "NULL, receiver_user_tags TEXT NOT NULL, access_type TEXT NOT NULL, created_at_ms BIGINT "
        "NOT NULL)",
        "CREATE INDEX invitations_organization ON invitations (organization_id)"}},
      keyringRotationMigration(14),
      {15,
       "the activity event outbox: a row per status change and subscribing module",
       {"CREATE TABLE activity_events (module TEXT NOT NULL, event_id TEXT NOT NULL, position "
        "BIGINT NOT NULL, activity_id TEXT NOT NULL, organization_id TEXT NOT NULL, "
        "parent_organization_id TEXT NOT NULL, activity_type TEXT NOT NULL, status TEXT NOT "
        "NULL, activity TEXT NOT NULL, created_at_ms BIGINT NOT NULL, attempts BIGINT NOT NULL, "
        "next_attempt_at_ms BIGINT NOT NULL, PRIMARY KEY (module, event_id))",
        "CREATE INDEX activity_events_order ON activity_events (module, position)"}},
      directoryGeneration(16),
      keyedByActivity(17),
      {18,
       "the budget an API key's requests are charged to: its organization's (NULL), or a "
       "service's own (the auth proxy's key, so that strangers at the proxy cannot spend the "
       "organization's)",
       {"ALTER TABLE api_keys ADD COLUMN rate_budget TEXT"}},
      {19,
       "whether an OAuth provider's issuer came from a verified token: only those make an issuer "
       "trusted for its keys to be fetched (a provider stated by bare oidcClaims, which anyone "
       "signing up may send, does not). Providers stored before count, as they did",
       {"ALTER TABLE oauth_providers ADD COLUMN verified INTEGER NOT NULL DEFAULT 0",
        "UPDATE oauth_providers SET verified = 1"}},
      ipAllowlists(20),
      activityLog(21),
      activityLogByRowid(22),
      oneRecordActivities(23),
      voteUsers(24),
      {25,
       "indexes for every sub-organization filter: list_suborgs and the auth proxy's account and "
       "login look-ups (reachable without credentials) find a sub-organization by email, "
       "username, name or public key through an index, not by reading every user, "
       "organization or authenticator",
       {"CREATE INDEX users_email_lower ON users (lower(email))",
        "CREATE INDEX users_name ON users (name)",
        "CREATE INDEX organizations_name ON organizations (name)",
        "CREATE INDEX authenticators_public_key ON authenticators (public_key)"}},
      activityLogNotesCarryLeaves(26),
      activityLogLeavesByActivity(27),
  };
}

}  // namespace signet
