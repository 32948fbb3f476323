// A fingerprint of a whole store: every table of the database (the core's and every enabled
// plugin's, read from the catalog of SQLite or PostgreSQL, so that a new table is covered
// without editing a list), each as the SHA-256 of its rows in a fixed order. Two fingerprints
// compare table by table, so that a difference names the tables that changed.
#pragma once

#include <map>
#include <set>
#include <string>

#include "support/test_gateway.hpp"

namespace signet::test {

using StoreFingerprint = std::map<std::string, std::string>;  // table -> rows' digest

// The tables that record an activity, refused ones included (for audit): the activity (its
// policy evaluations and what its stamps presented inside it), its voters' copies and its leaves
// in the activity log (with the subtrees and head they move). Tests of refusals leave these out
// of the fingerprint and check the refused activities on their own.
inline const std::set<std::string> kActivityRecordTables = {
    "activities", "vote_users", "activity_log_leaves", "activity_log_nodes", "activity_log_head"};

// What the gateway writes on its own clock, whatever a test does: the activity log's checkpoint
// worker signs and keeps the head (and gathers cosignatures) every log.checkpointSeconds.
// Never part of a fingerprint.
inline const std::set<std::string> kWrittenOnItsOwnClock = {"activity_log_checkpoints",
                                                            "activity_log_witnesses"};

// Every table but those in `except` and kWrittenOnItsOwnClock (tables a test checks on its own,
// such as kActivityRecordTables).
StoreFingerprint fingerprintOfStore(TestGateway& gw, const std::set<std::string>& except = {});

// The tables whose rows differ between two fingerprints, "" when none do.
std::string changedTables(const StoreFingerprint& before, const StoreFingerprint& after);

}  // namespace signet::test
