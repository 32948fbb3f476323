// @turnkey/sdk-server, unchanged, driving policies and consensus against a running signet.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { apiClientFor, generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, org, root;
const clientFor = (key) => apiClientFor(signet, key, org);

before(async () => {
  signet = await startSignet(rootKey);
  org = signet.ids.organizationId;
  root = clientFor(rootKey);
});

after(async () => {
  assert.equal(await signet.stop(), 0);
});

// A user with an API key (and tags), created by the root user.
async function makeUser(name, userTags = []) {
  const key = generateKey("p256");
  const { userIds } = await root.createUsers({
    users: [{ userName: name, userTags, authenticators: [], oauthProviders: [],
              apiKeys: [{ apiKeyName: name, publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }] }],
  });
  return { id: userIds[0], key, client: clientFor(key) };
}

const newUser = (name) => ({ userName: name, userTags: [], apiKeys: [], authenticators: [], oauthProviders: [] });

test("a DENY policy turns an otherwise allowed activity into FAILED, naming the policy", async () => {
  const member = await makeUser("member");
  const victim = await makeUser("victim");
  await root.createPolicy({ policyName: "member manages users", effect: "EFFECT_ALLOW", notes: "",
                            condition: "activity.resource == 'USER'",
                            consensus: `approvers.any(user, user.id == '${member.id}')` });
  const deny = await root.createPolicy({ policyName: "no deleting users", effect: "EFFECT_DENY", notes: "",
                                         condition: "activity.resource == 'USER' && activity.action == 'DELETE'" });
  const created = await member.client.createUsers({ users: [newUser("allowed")] });
  assert.equal(created.activity.status, "ACTIVITY_STATUS_COMPLETED");
  const denied = await member.client.deleteUsers({ userIds: [victim.id] });
  assert.equal(denied.activity.status, "ACTIVITY_STATUS_FAILED");
  assert.match(denied.activity.failure.message, /no deleting users/);
  assert.ok(denied.activity.failure.message.includes(deny.policyId));
  const { policyEvaluations } = await root.getPolicyEvaluations({ activityId: denied.activity.id });
  assert.ok(policyEvaluations[0].policyEvaluations.some(
    (e) => e.policyId === deny.policyId && e.outcome === "OUTCOME_DENY_EXPLICIT"));
});

test("a tag-based consensus policy waits for a tagged approver", async () => {
  const { userTagId } = await root.createUserTag({ userTagName: "approvers", userIds: [] });
  const submitter = await makeUser("submitter");
  const approver = await makeUser("approver", [userTagId]);
  await root.createPolicy({ policyName: "tagged approval for user creation", effect: "EFFECT_ALLOW", notes: "",
                            condition: "activity.type == 'ACTIVITY_TYPE_CREATE_USERS_V4'",
                            consensus: `approvers.any(user, user.tags.contains('${userTagId}'))` });
  const pending = await submitter.client.createUsers({ users: [newUser("needs approval")] });
  assert.equal(pending.activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  const approved = await approver.client.approveActivity({ fingerprint: pending.activity.fingerprint });
  assert.equal(approved.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(approved.activity.id, pending.activity.id);
  assert.equal(approved.activity.result.createUsersResult.userIds.length, 1);
});

test("a two-of-two root quorum: the first submission waits, the second user's approval completes it", async () => {
  const second = await makeUser("second root");
  await root.updateRootQuorum({ threshold: 2, userIds: [signet.ids.userId, second.id] });
  const pending = await root.setOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH", value: "true" });
  assert.equal(pending.activity.status, "ACTIVITY_STATUS_CONSENSUS_NEEDED");
  const { activity } = await second.client.getActivity({ activityId: pending.activity.id });
  assert.equal(activity.canApprove, true);
  const approved = await second.client.approveActivity({ fingerprint: pending.activity.fingerprint });
  assert.equal(approved.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.deepEqual(approved.activity.result.setOrganizationFeatureResult.features,
                   [{ name: "FEATURE_NAME_EMAIL_AUTH", value: "true" }]);
  assert.equal(approved.activity.votes.length, 2);
});
