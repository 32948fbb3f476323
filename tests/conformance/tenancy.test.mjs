// @turnkey/sdk-server, unchanged, driving tenancy against a running signet.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Turnkey } from "@turnkey/sdk-server";
import { generateKey, startSignet } from "./harness.mjs";

const rootKey = generateKey("p256");
let signet, turnkey, api, parentOrg;

before(async () => {
  signet = await startSignet(rootKey);
  parentOrg = signet.ids.organizationId;
  turnkey = new Turnkey({
    apiBaseUrl: signet.baseUrl,
    apiPublicKey: rootKey.publicKeyHex,
    apiPrivateKey: rootKey.privateKeyHex,
    defaultOrganizationId: parentOrg,
  });
  api = turnkey.apiClient();
});

after(async () => {
  assert.equal(await signet.stop(), 0);
});

const rootUser = (name, email, key) => ({
  userName: name,
  userEmail: email,
  apiKeys: [{ apiKeyName: `${name} key`, publicKey: key.publicKeyHex, curveType: "API_KEY_CURVE_P256" }],
  authenticators: [],
  oauthProviders: [],
});

const clientFor = (key) => turnkey.apiClient({ apiPublicKey: key.publicKeyHex, apiPrivateKey: key.privateKeyHex });

test("sub-organizations V8 and V7: the root user's key works inside, and is refused in the parent", async () => {
  const keyV8 = generateKey("p256");
  const v8 = await api.createSubOrganization({
    subOrganizationName: "Alice's wallet",
    rootUsers: [rootUser("alice", "alice@example.com", keyV8)],
    rootQuorumThreshold: 1,
  });
  assert.equal(v8.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.equal(v8.activity.type, "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V8");
  assert.ok(v8.subOrganizationId);
  assert.equal(v8.rootUserIds.length, 1);

  const keyV7 = generateKey("p256");
  const v7 = await api.command("/public/v1/submit/create_sub_organization", {
    parameters: {
      subOrganizationName: "Bob's wallet",
      rootUsers: [{ ...rootUser("bob", "bob@example.com", keyV7), userPhoneNumber: "+14155550100" }],
      rootQuorumThreshold: 1,
    },
    organizationId: parentOrg,
    timestampMs: String(Date.now()),
    type: "ACTIVITY_TYPE_CREATE_SUB_ORGANIZATION_V7",
  }, "createSubOrganizationResultV7");
  assert.equal(v7.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.ok(v7.subOrganizationId);

  for (const [sub, key, name] of [[v8, keyV8, "alice"], [v7, keyV7, "bob"]]) {
    const inside = clientFor(key);
    const me = await inside.getWhoami({ organizationId: sub.subOrganizationId });
    assert.equal(me.organizationId, sub.subOrganizationId);
    assert.equal(me.userId, sub.rootUserIds[0]);
    const { user } = await inside.getUser({ organizationId: sub.subOrganizationId, userId: sub.rootUserIds[0] });
    assert.equal(user.userName, name);
    await assert.rejects(
      inside.getUser({ organizationId: parentOrg, userId: signet.ids.userId }),
      (e) => /could not find public key in organization or its parent organization/.test(e.message)
        && e.message.includes(parentOrg) && e.message.includes(sub.subOrganizationId),
    );
  }
});

test("users and tags in a sub-organization, created and listed with its own key", async () => {
  const key = generateKey("p256");
  const sub = await api.createSubOrganization({
    subOrganizationName: "Team",
    rootUsers: [rootUser("lead", "lead@example.com", key)],
    rootQuorumThreshold: 1,
  });
  const team = clientFor(key);
  const organizationId = sub.subOrganizationId;
  const created = await team.createUsers({
    organizationId,
    users: [
      { userName: "member one", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] },
      { userName: "member two", userEmail: "two@example.com", apiKeys: [], authenticators: [], oauthProviders: [], userTags: [] },
    ],
  });
  assert.equal(created.userIds.length, 2);
  const tag = await team.createUserTag({ organizationId, userTagName: "members", userIds: created.userIds });
  assert.ok(tag.userTagId);
  const { users } = await team.getUsers({ organizationId });
  assert.deepEqual(users.map((u) => u.userName).sort(), ["lead", "member one", "member two"]);
  const tagged = users.filter((u) => u.userTags.includes(tag.userTagId));
  assert.equal(tagged.length, 2);
  const { userTags } = await team.listUserTags({ organizationId });
  assert.deepEqual(userTags.map((t) => [t.tagName, t.tagType]), [["members", "TAG_TYPE_USER"]]);
});

test("list_suborgs finds a sub-organization by email, by name and by public key", async () => {
  const key = generateKey("p256");
  const sub = await api.createSubOrganization({
    subOrganizationName: "Findable Org",
    rootUsers: [rootUser("finder", "Find.Me@Example.com", key)],
    rootQuorumThreshold: 1,
  });
  for (const [filterType, filterValue] of [
    ["EMAIL", "find.me@example.com"],
    ["NAME", "Findable Org"],
    ["PUBLIC_KEY", key.publicKeyHex],
  ]) {
    const { organizationIds } = await api.getSubOrgIds({ filterType, filterValue });
    assert.deepEqual(organizationIds, [sub.subOrganizationId], filterType);
  }
  const none = await api.getSubOrgIds({ filterType: "EMAIL", filterValue: "nobody@example.com" });
  assert.deepEqual(none.organizationIds, []);
});

test("an organization feature is set and removed", async () => {
  const set = await api.setOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH", value: "true" });
  assert.deepEqual(set.features, [{ name: "FEATURE_NAME_EMAIL_AUTH", value: "true" }]);
  const { configs } = await api.getOrganizationConfigs({ organizationId: parentOrg });
  assert.equal(configs.features.length, 1);
  assert.deepEqual(configs.quorum, { threshold: 1, userIds: [signet.ids.userId] });
  const removed = await api.removeOrganizationFeature({ name: "FEATURE_NAME_EMAIL_AUTH" });
  assert.deepEqual(removed.features, []);
});

test("an API key's IP allowlist is set, read, enforced and removed through the SDK's own methods", async () => {
  // A second key of the root user, fenced to networks that are not loopback.
  const ci = generateKey("p256");
  await api.createApiKeys({
    userId: signet.ids.userId,
    apiKeys: [{ apiKeyName: "ci", publicKey: ci.publicKeyHex, curveType: "API_KEY_CURVE_P256" }],
  });
  const asCi = clientFor(ci);
  const set = await api.setIpAllowlist({
    publicKey: ci.publicKeyHex,
    rules: [{ cidr: "10.0.0.0/8", label: "office" }, { cidr: "2001:db8::/32" }],
    onEvaluationError: "DENY",
  });
  assert.equal(set.activity.status, "ACTIVITY_STATUS_COMPLETED");
  assert.deepEqual(set.activity.result, { setIpAllowlistResult: {} });
  const { allowlist } = await api.getIpAllowlist({ organizationId: parentOrg, publicKey: ci.publicKeyHex });
  assert.equal(allowlist.organizationId, parentOrg);
  assert.equal(allowlist.publicKey, ci.publicKeyHex);
  assert.equal(allowlist.onEvaluationError, "DENY");
  assert.deepEqual(allowlist.rules.map((r) => [r.cidr, r.label]), [["10.0.0.0/8", "office"], ["2001:db8::/32", undefined]]);
  assert.match(allowlist.rules[0].createdAt, /^\d+$/);

  await assert.rejects(asCi.getWhoami({ organizationId: parentOrg }),
    (e) => /IP allowlist of API key/.test(e.message) && e.message.includes("127.0.0.1"));
  assert.equal((await api.getWhoami({ organizationId: parentOrg })).organizationId, parentOrg);

  // A bad network is refused naming the field, and the list stays as it was.
  await assert.rejects(api.setIpAllowlist({ publicKey: ci.publicKeyHex, rules: [{ cidr: "10.0.0.0/33" }] }),
    (e) => e.message.includes("parameters.rules[0].cidr"));
  const after = await api.getIpAllowlist({ organizationId: parentOrg, publicKey: ci.publicKeyHex });
  assert.equal(after.allowlist.rules.length, 2);

  const removed = await api.removeIpAllowlist({ publicKey: ci.publicKeyHex });
  assert.deepEqual(removed.activity.result, { removeIpAllowlistResult: {} });
  assert.equal((await asCi.getWhoami({ organizationId: parentOrg })).userId, signet.ids.userId);
});
