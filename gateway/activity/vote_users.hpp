// The voter in each vote (v1Vote.user: the user as they were when they voted) is referenced, not
// copied: a stored vote holds "userDigest", the SHA-256 of that user's JSON, and `vote_users`
// holds the JSON once per organization and content (core migration 24). A signature's vote
// carried about 700 bytes of user in a row of about 2 KB; the same user signing again adds no
// copy. The digest is over the exact text, so the answer is the user as they voted, not as they
// are now, and a copy altered in the store no longer matches its digest and is refused.
// Votes stored before the migration keep their copies inside, and are read as they are, until
// their activity is next written.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "signet/db.hpp"
#include "signet/json.hpp"

namespace signet::vote_users {

// `votes` as they are stored (`text`: each vote's user replaced by its digest) and the users
// they name, by digest.
struct StoredVotes {
  std::string text;
  std::map<std::string, std::string> users;  // digest -> the user's JSON
};
StoredVotes storedVotes(const json::Array& votes);

// Writes the users that `organizationId` (the activity's) does not hold yet, once the row of
// activity `activityId` that names them is written: a row not written (an identical request's
// stored first, an activity whose organization was deleted) leaves no copy behind. The
// statement itself checks that the row is there, so it may follow a write whose answer was not
// waited for (activities::sendUnlessStored).
void writeUsers(Db& db, const std::string& organizationId, const std::string& activityId,
                const StoredVotes& votes);

// The digests of the users that a stored `votes` column names, in its order.
std::vector<std::string> digestsIn(const std::string& storedVotesText);

// Whether a stored copy is the user its digest names.
bool copyMatches(const std::string& digest, const std::string& userJson);

// Puts the users back into votes read from the store, for activities of `organizationId`.
// One read for all of them; a vote whose user is inside already is left as it is. Returns, for
// each list, the characters of stored copies it gained (what a page's size budget counts).
std::vector<size_t> attach(Db& db, const std::string& organizationId,
                           const std::vector<json::Array>& votes);

}  // namespace signet::vote_users
