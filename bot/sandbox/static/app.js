// duelbot sandbox page. Everything shown is built with textContent: names, messages and
// embeds come from members and the bot and are hostile input, never HTML.
"use strict";

const state = {
  world: null,
  commands: [],
  view: null,          // {kind: "channel", id} or {kind: "dm", userId}
  revision: -1,
  actingAs: null,      // user id (string): who acts now (a DM's owner in DMs)
  channelActor: null,  // who acts in channels: the last one chosen there (a DM does not change it)
  guide: {stats: new Set(), duel: null, round: 0, roundOpen: false, moved: new Set(), over: false, exported: false},
  names: new Map(),    // user id -> display name, for mentions
  busy: false,
  rendered: "",        // what #messages shows now (view + messages), to skip needless renders
  stuck: true,         // the message view follows its newest message
};

const $ = (id) => document.getElementById(id);

// The page's own texts in the visitor's language (?lang= or the browser's Accept-Language),
// built by the server from the catalogs (bot/sandbox/texts.py): templates with {fields},
// plural texts by CLDR category. The bot's messages are the bot's, in each member's language.
const TEXTS = JSON.parse(document.getElementById("sandbox-texts")?.textContent || "{}");
const LANG = document.documentElement.lang || "en";
const PLURALS = (() => {
  try { return new Intl.PluralRules(LANG); } catch { return new Intl.PluralRules("en"); }
})();

function template(key, fields) {
  let found = TEXTS[key];
  if (found && typeof found === "object") found = found[PLURALS.select(Number(fields?.count))] || found.other;
  return typeof found === "string" ? found : key;
}

/** The text ``key`` with each {field} filled in, in one pass. */
function t(key, fields = {}) {
  return template(key, fields).replace(/\{([a-z_]+)\}/g,
    (whole, name) => (name in fields ? String(fields[name]) : whole));
}

/** The same as nodes: a field may be an element (kept as is, never parsed). */
function tNodes(key, fields = {}) {
  return template(key, fields).split(/(\{[a-z_]+\})/).filter(Boolean).map((piece) => {
    const name = /^\{([a-z_]+)\}$/.exec(piece)?.[1];
    if (!name || !(name in fields)) return piece;
    return fields[name] instanceof Node ? fields[name] : String(fields[name]);
  });
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("data-")) node.setAttribute(key, String(value));
    else node[key] = value;
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return node;
}

async function api(method, path, body) {
  const options = {method, headers: {}};
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(data.error || `${response.status} ${response.statusText}`);
  return data;
}

// -- text: Discord's markdown, built as DOM nodes (never innerHTML) ---------------------

// Order matters where two start at the same place: an escape first, then ** before *, etc.
const INLINE = /(\\[^A-Za-z0-9\s]|\*\*(?:\\.|[^*\\])+\*\*|__(?:\\.|[^_\\])+__|~~(?:\\.|[^~\\])+~~|\|\|(?:\\.|[^|\\])+\|\||\*(?:\\.|[^*\s\\])(?:\\.|[^*\\])*\*|\b_(?:\\.|[^_\s\\])(?:\\.|[^_\\])*_\b|`[^`]+`|<@!?\d+>|<@&\d+>|<#\d+>|<t:-?\d+(?::[tTdDfFR])?>)/;

function renderInline(text, parent) {
  for (const piece of text.split(INLINE)) {
    if (!piece) continue;
    if (piece.length === 2 && piece[0] === "\\" && !/[A-Za-z0-9\s]/.test(piece[1])) {
      parent.append(document.createTextNode(piece[1]));  // "public\_stake" reads public_stake
    } else if (piece.startsWith("**") && piece.endsWith("**") && piece.length > 4) {
      parent.append(renderInline(piece.slice(2, -2), el("strong")));
    } else if (piece.startsWith("__") && piece.endsWith("__") && piece.length > 4) {
      parent.append(renderInline(piece.slice(2, -2), el("u")));
    } else if (piece.startsWith("~~") && piece.endsWith("~~") && piece.length > 4) {
      parent.append(renderInline(piece.slice(2, -2), el("s")));
    } else if (piece.startsWith("||") && piece.endsWith("||") && piece.length > 4) {
      parent.append(renderInline(piece.slice(2, -2), el("span", {class: "spoiler"})));
    } else if ((piece.startsWith("*") && piece.endsWith("*") && piece.length > 2)
               || (piece.startsWith("_") && piece.endsWith("_") && piece.length > 2)) {
      parent.append(renderInline(piece.slice(1, -1), el("em")));
    } else if (piece.startsWith("`") && piece.endsWith("`") && piece.length > 2) {
      parent.append(el("code", {text: piece.slice(1, -1)}));  // no markdown inside code
    } else if (/^<@!?\d+>$/.test(piece)) {
      const id = piece.replace(/\D/g, "");
      parent.append(el("span", {class: "mention", text: "@" + (state.names.get(id) || id)}));
    } else if (/^<@&\d+>$/.test(piece)) {
      const id = piece.replace(/\D/g, "");
      const role = (state.world?.roles || []).find((r) => r.id === id);
      parent.append(el("span", {class: "mention", text: "@" + (role ? role.name : id)}));
    } else if (/^<#\d+>$/.test(piece)) {
      const id = piece.replace(/\D/g, "");
      const channel = (state.world?.channels || []).find((c) => c.id === id);
      parent.append(el("span", {class: "mention", text: "#" + (channel ? channel.name : id)}));
    } else if (piece.startsWith("<t:")) {
      const [, seconds, style] = piece.slice(1, -1).split(":");
      parent.append(el("span", {class: "stamp", text: formatStamp(Number(seconds), style || "f")}));
    } else {
      parent.append(document.createTextNode(piece));
    }
  }
  return parent;
}

function formatStamp(seconds, style) {
  const date = new Date(seconds * 1000);
  if (style === "R") {
    const delta = Math.round((date.getTime() - Date.now()) / 1000);
    const units = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
    const [unit, size] = units.find(([, s]) => Math.abs(delta) >= s) || units[3];
    return new Intl.RelativeTimeFormat(LANG, {numeric: "auto"}).format(Math.round(delta / size), unit);
  }
  // Discord's styles: t 16:20, T 16:20:30, d 20/04/2021, D 20 April 2021, f/F with the date.
  const forms = {
    t: {timeStyle: "short"}, T: {timeStyle: "medium"}, d: {dateStyle: "short"},
    D: {dateStyle: "long"}, f: {dateStyle: "long", timeStyle: "short"},
    F: {dateStyle: "full", timeStyle: "short"},
  };
  return new Intl.DateTimeFormat(LANG, forms[style] || forms.f).format(date);
}

/** Text with ``` blocks as <pre> and the rest as inline markdown, into ``parent``. */
function renderText(text, parent) {
  const parts = String(text || "").split(/```/);
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      parent.append(el("pre", {}, el("code", {text: part.replace(/^[a-z0-9+-]*\n/i, "")})));
    } else if (part) {
      renderInline(part, parent);
    }
  });
  return parent;
}

// -- messages --------------------------------------------------------------------------

const AVATAR_COLOURS = ["#5865f2", "#3ba55c", "#faa61a", "#ed4245", "#eb459e", "#9b59b6"];

function avatar(name, id) {
  const n = [...String(id)].reduce((sum, c) => sum + c.charCodeAt(0), 0);
  const node = el("div", {class: "avatar", text: (name || "?").slice(0, 1).toUpperCase()});
  node.style.background = AVATAR_COLOURS[n % AVATAR_COLOURS.length];
  return node;
}

function colourOf(value) {
  if (typeof value !== "number") return null;
  return "#" + value.toString(16).padStart(6, "0");
}

function renderEmbed(embed) {
  const node = el("div", {class: "embed"});
  const colour = colourOf(embed.color);
  if (colour) node.style.borderLeftColor = colour;
  if (embed.author?.name) node.append(el("div", {class: "embed-author", text: embed.author.name}));
  if (embed.title) node.append(renderText(embed.title, el("div", {class: "embed-title"})));
  if (embed.description) {
    node.append(renderText(embed.description, el("div", {class: "embed-description"})));
  }
  if (embed.fields?.length) {
    const grid = el("div", {class: "embed-fields"});
    for (const field of embed.fields) {
      grid.append(el("div", {class: "embed-field" + (field.inline ? " inline" : "")},
        renderText(field.name, el("div", {class: "embed-field-name"})),
        renderText(field.value, el("div", {class: "embed-field-value"}))));
    }
    node.append(grid);
  }
  const footer = [embed.footer?.text, embed.timestamp && new Date(embed.timestamp).toLocaleString(LANG)]
    .filter(Boolean).join(" • ");
  if (footer) node.append(el("div", {class: "embed-footer", text: footer}));
  return node;
}

function renderComponents(message, clicker) {
  const box = el("div", {class: "components"});
  for (const row of message.components || []) {
    const rowNode = el("div", {class: "action-row"});
    for (const item of row.components || []) {
      if (item.type === 2) {
        const label = [item.emoji?.name, item.label].filter(Boolean).join(" ");
        const button = el("button", {
          type: "button", class: `component style-${item.style || 2}`, text: label || "…",
          disabled: Boolean(item.disabled) || item.style === 5,
          "data-custom-id": item.custom_id, "data-message-id": message.id,
        });
        button.title = item.style === 5 ? t("link_not_followed") : "";
        button.addEventListener("click", () => clickButton(clicker(), message.id, item.custom_id));
        rowNode.append(button);
      } else if (item.type === 3) {
        const select = el("select", {"data-custom-id": item.custom_id, disabled: Boolean(item.disabled)},
          el("option", {value: "", text: item.placeholder || t("choose")}),
          ...(item.options || []).map((o) => el("option", {value: o.value, text: o.label})));
        select.addEventListener("change", () => {
          if (select.value) clickButton(clicker(), message.id, item.custom_id, [select.value]);
        });
        rowNode.append(select);
      }
    }
    box.append(rowNode);
  }
  return box;
}

/** A file the bot attached: HTML opens in a new tab, anything else downloads. Served by the
 * sandbox to ``viewer`` only if they can see its message. */
function attachmentLink(file, viewer) {
  const url = `/api/attachments/${encodeURIComponent(file.id)}/${encodeURIComponent(file.filename)}`
    + `?as=${encodeURIComponent(viewer)}`;
  const html = /\.html?$/i.test(file.filename);
  const link = el("a", {class: "attachment", href: url,
    text: t(html ? "open_file" : "download_file", {file: file.filename}), "data-attachment-id": file.id});
  if (html) {
    link.target = "_blank";
    link.rel = "noopener";
    link.append(el("span", {class: "visually-hidden", text: " " + t("new_tab")}));
  } else {
    link.download = file.filename;
  }
  return link;
}

function renderMessage(message, clicker, viewer) {
  const author = message.author || {};
  const name = author.global_name || author.username || "?";
  const body = el("div", {class: "msg-body"});
  if (message.interaction?.user) {
    const used = message.interaction.command
      ? t("used_command", {name: message.interaction.user.name, command: message.interaction.command})
      : t("clicked_button", {name: message.interaction.user.name});
    body.append(el("div", {class: "used", text: "↱ " + used}));
  }
  const header = el("div", {class: "msg-header"}, el("span", {class: "author", text: name}));
  if (author.bot) header.append(el("span", {class: "tag", text: message.webhook_id && !message.interaction ? "APP" : "BOT"}));
  header.append(el("time", {text: new Date(message.timestamp).toLocaleTimeString(LANG),
    dateTime: message.timestamp}));
  body.append(header);
  if (message.loading) {
    body.append(el("div", {class: "loading", text: t("thinking", {name})}));
  } else if (message.content) {
    body.append(renderText(message.content, el("div", {class: "content"})));
  }
  for (const embed of message.embeds || []) body.append(renderEmbed(embed));
  for (const file of message.attachments || []) body.append(attachmentLink(file, viewer));
  if (message.components?.length) body.append(renderComponents(message, clicker));
  if (message.ephemeral) body.append(el("div", {class: "only-you", text: t("only_you")}));
  return el("article", {
    class: "message" + (message.ephemeral ? " ephemeral" : ""),
    "data-message-id": message.id, "data-author-id": author.id,
  }, avatar(name, author.id), body);
}

// -- views -----------------------------------------------------------------------------

function person(id) {
  return state.world.people.find((p) => p.id === id);
}

function setStatus(text, kind) {
  const status = $("action-status");
  status.replaceChildren();
  renderText(text, status);
  status.dataset.state = kind;
}

async function loadWorld() {
  state.world = await api("GET", "/api/world");
  for (const p of state.world.people) state.names.set(p.id, p.name);
  state.names.set(state.world.bot.id, state.world.bot.name);
  $("server-name").textContent = state.world.guild.name;
  renderSidebar();
}

function renderSidebar() {
  // Redrawing replaces the links: a keyboard user's focus moves to the new link for the same place.
  const had = document.activeElement?.closest?.("#sidebar a");
  const refocus = had ? (had.dataset.channelId ? `[data-channel-id='${had.dataset.channelId}']`
    : `[data-dm-user-id='${had.dataset.dmUserId}']`) : null;
  const channels = $("channel-list");
  channels.replaceChildren();
  for (const ch of state.world.channels) {
    const link = el("a", {
      href: "#", class: ch.thread ? "thread" : "", text: (ch.thread ? "🧵 " : "# ") + ch.name,
      "data-channel-id": ch.id,
    });
    if (state.view?.kind === "channel" && state.view.id === ch.id) link.setAttribute("aria-current", "page");
    link.addEventListener("click", (e) => { e.preventDefault(); show({kind: "channel", id: ch.id}); });
    channels.append(el("li", {}, link));
  }
  const dms = $("dm-list");
  dms.replaceChildren();
  for (const p of state.world.people) {
    const link = el("a", {href: "#", "data-dm-user-id": p.id}, p.name,
      el("span", {class: "badge", text: p.role}));
    if (state.view?.kind === "dm" && state.view.userId === p.id) link.setAttribute("aria-current", "page");
    link.addEventListener("click", (e) => { e.preventDefault(); show({kind: "dm", userId: p.id}); });
    dms.append(el("li", {}, link));
  }
  const acting = $("acting-as");
  if (!acting.options.length) {
    for (const p of state.world.people) {
      acting.append(el("option", {value: p.id, text: `${p.name} (${p.role})`}));
    }
  }
  acting.value = state.actingAs;
  if (refocus) document.querySelector(`#sidebar a${refocus}`)?.focus();
}

function renderViewTitle() {
  const note = $("view-note");
  const actor = person(state.actingAs);
  const who = el("span", {class: "acting-now", text: `${actor.name} (${actor.role})`});
  if (state.view.kind === "dm") {
    $("view-title").textContent = t("dm_title", {name: actor.name, bot: state.world.bot.name});
    note.replaceChildren(...tNodes("acting_dm", {who, name: actor.name}));
    return;
  }
  const ch = state.world.channels.find((c) => c.id === state.view.id);
  $("view-title").textContent = (ch?.thread ? "🧵 " : "# ") + (ch?.name || state.view.id);
  note.replaceChildren(...tNodes("acting_channel", {who, acting_as: t("acting_as")}));
}

async function show(view) {
  state.view = view;
  // A person's DMs act as that person; channels keep the last one chosen for channels.
  state.actingAs = view.kind === "dm" ? view.userId : state.channelActor;
  renderViewTitle();
  $("dm-form").hidden = view.kind !== "dm";
  closeDrawer();
  renderSidebar();
  renderCommandSelect();
  await refreshMessages(true);
}

// -- the drawer (phones): channels and people behind the menu button --------------------

function openDrawer() {
  document.body.classList.add("drawer-open");
  $("menu-button").setAttribute("aria-expanded", "true");
  $("scrim").hidden = false;
  $("view").inert = true;  // Tab stays in the drawer and the top bar while it covers the page
  const current = document.querySelector("#sidebar a[aria-current='page']") || document.querySelector("#sidebar a");
  if (current) current.focus();
}

function closeDrawer() {
  if (!document.body.classList.contains("drawer-open")) return;
  document.body.classList.remove("drawer-open");
  $("menu-button").setAttribute("aria-expanded", "false");
  $("scrim").hidden = true;
  $("view").inert = false;
  $("menu-button").focus();
}

$("menu-button").addEventListener("click", () => {
  if (document.body.classList.contains("drawer-open")) closeDrawer(); else openDrawer();
});
$("scrim").addEventListener("click", closeDrawer);
document.addEventListener("keydown", (event) => { if (event.key === "Escape") closeDrawer(); });

// The view stays at its newest message (as Discord's does) unless the reader scrolled up:
// "stuck" is whether they were at the end, kept through new messages and through the box
// changing size (the form or the status line growing).
const messageBox = $("messages");
messageBox.addEventListener("scroll", () => {
  state.stuck = messageBox.scrollHeight - messageBox.scrollTop - messageBox.clientHeight < 40;
});
new ResizeObserver(() => { if (state.stuck) messageBox.scrollTop = messageBox.scrollHeight; })
  .observe(messageBox);

async function refreshMessages(scrollToEnd) {
  const box = messageBox;
  const view = state.view;
  const actingAs = state.actingAs;
  let messages;
  let clicker;
  if (view.kind === "dm") {
    const owner = view.userId;
    messages = (await api("GET", `/api/people/${owner}/dms`)).messages;
    clicker = () => owner;
  } else {
    const data = await api("GET", `/api/channels/${view.id}/messages?as=${actingAs}`);
    messages = data.messages;
    clicker = () => state.actingAs;
  }
  // An answer for a view left while it was on its way is not drawn in the new view.
  if (view !== state.view || actingAs !== state.actingAs) return;
  // Re-render only what changed: buttons are not swapped under the pointer for nothing.
  const key = JSON.stringify([state.view, state.actingAs, messages, nextStep()?.text]);
  if (key === state.rendered) {
    if (scrollToEnd) {
      box.scrollTop = box.scrollHeight;
      state.stuck = true;
    }
    return;
  }
  state.rendered = key;
  const viewer = clicker();
  box.replaceChildren(...messages.map((m) => renderMessage(m, clicker, viewer)));
  if (!messages.length) {
    box.append(el("p", {class: "note", text: t("no_messages")}));
    const card = guideNode("guide-card");
    if (card) box.append(card);
  }
  renderGuide(messages.length === 0);
  box.dataset.count = String(messages.length);
  if (scrollToEnd || state.stuck) {
    box.scrollTop = box.scrollHeight;
    state.stuck = true;
  }
}

// -- acting ----------------------------------------------------------------------------

/** Do ``call`` and say how it went; ``done(summary)`` runs when it worked (the guide). */
async function act(label, call, done) {
  setStatus(t("busy", {label}), "busy");
  try {
    const result = await call();
    const reply = result?.reply;
    const summary = reply
      ? [reply.content, ...(reply.embeds || []).map((e) => e.title || e.description)].filter(Boolean).join(" — ")
      : "";
    if (done) done(summary);
    // "done" once the page shows the outcome (the messages and the next step).
    await refreshMessages(true).catch(() => {});
    setStatus(summary ? t("done_summary", {label, summary}) : t("done", {label}), "done");
  } catch (error) {
    await refreshMessages(true).catch(() => {});
    setStatus(t("failed", {label, error: error.message}), "error");
  }
}

function clickButton(userId, messageId, customId, values) {
  return act(t("clicked", {name: person(userId).name}), () =>
    api("POST", `/api/people/${userId}/click`, {message_id: messageId, custom_id: customId, values}),
    () => { if (customId.includes(":move:")) state.guide.moved.add(userId); });
}

$("dm-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("dm-input");
  const content = input.value;
  if (!content.trim()) return;
  const userId = state.view.userId;
  input.value = "";
  act(t("sent_dm", {name: person(userId).name}), () =>
    api("POST", `/api/people/${userId}/dm`, {content}),
    () => { if (state.guide.roundOpen) state.guide.moved.add(userId); });
});

$("acting-as").addEventListener("change", (event) => {
  if (state.view.kind === "dm") { show({kind: "dm", userId: event.target.value}); return; }
  state.channelActor = event.target.value;
  show(state.view);
});

// -- slash commands --------------------------------------------------------------------

const TYPE = {STRING: 3, INTEGER: 4, BOOLEAN: 5, USER: 6, CHANNEL: 7, ROLE: 8, MENTIONABLE: 9, NUMBER: 10, ATTACHMENT: 11};

function usableCommands() {
  const inDm = state.view?.kind === "dm";
  return state.commands.filter((c) => (inDm ? c.in_dms : c.in_guild));
}

function currentCommand() {
  return state.commands.find((c) => c.path === $("command-select").value) || null;
}

function renderCommandSelect() {
  const select = $("command-select");
  const before = select.value;
  select.replaceChildren(el("option", {value: "", text: t("choose_command")}),
    ...usableCommands().map((c) => el("option", {value: c.path, text: "/" + c.path})));
  if ([...select.options].some((o) => o.value === before)) select.value = before;
  // Keep what was typed into the form when the same command stays selected.
  if (select.value !== before || !$("command-options").childElementCount) renderOptions();
}

function optionInput(spec) {
  const name = `opt-${spec.name}`;
  const people = state.world.people;
  const choose = (items) => el("select", {name, id: name},
    el("option", {value: "", text: spec.required ? t("choose") : t("none_option")}),
    ...items.map(([value, label]) => el("option", {value, text: label})));
  if (spec.choices?.length) return choose(spec.choices.map((c) => [String(c.value), c.name]));
  switch (spec.type) {
    case TYPE.BOOLEAN: return choose([["true", t("true")], ["false", t("false")]]);
    case TYPE.USER: return choose(people.map((p) => [p.id, p.name]));
    case TYPE.ROLE: return choose(state.world.roles.map((r) => [r.id, "@" + r.name]));
    case TYPE.MENTIONABLE:
      return choose([...people.map((p) => [p.id, p.name]), ...state.world.roles.map((r) => [r.id, "@" + r.name])]);
    case TYPE.CHANNEL: return choose(state.world.channels.map((c) => [c.id, "#" + c.name]));
    case TYPE.ATTACHMENT: return el("input", {type: "file", name, id: name});
    case TYPE.INTEGER:
    case TYPE.NUMBER: {
      const input = el("input", {type: "number", name, id: name, step: spec.type === TYPE.INTEGER ? "1" : "any"});
      if (spec.min_value !== undefined && spec.min_value !== null) input.min = spec.min_value;
      if (spec.max_value !== undefined && spec.max_value !== null) input.max = spec.max_value;
      return input;
    }
    default: {
      const input = el("input", {type: "text", name, id: name});
      if (spec.max_length) input.maxLength = spec.max_length;
      return input;
    }
  }
}

function renderOptions() {
  const box = $("command-options");
  box.replaceChildren();
  const command = currentCommand();
  $("command-description").textContent = command ? command.description : "";
  if (!command) return;
  for (const spec of command.options) {
    const input = optionInput(spec);
    const hint = el("small", {id: `${input.id}-hint`, text: spec.description || ""});
    input.setAttribute("aria-describedby", hint.id);
    if (spec.required) {
      input.required = true;
      input.setAttribute("aria-required", "true");
      input.addEventListener("input", () => input.removeAttribute("aria-invalid"));
      input.addEventListener("change", () => input.removeAttribute("aria-invalid"));
    }
    const field = el("div", {class: "field", "data-option": spec.name},
      el("label", {htmlFor: input.id}, spec.name,
        spec.required ? el("span", {class: "req", text: t("required")}) : null),
      input, hint);
    if (spec.autocomplete && input.tagName === "INPUT") {
      const list = el("datalist", {id: `${input.id}-choices`});
      input.setAttribute("list", list.id);
      field.append(list);
      let timer = null;
      const refresh = () => { clearTimeout(timer); timer = setTimeout(() => autocomplete(spec, list), 200); };
      input.addEventListener("input", refresh);
      input.addEventListener("focus", refresh);
    }
    box.append(field);
  }
}

async function formOptions(command, partial) {
  const options = {};
  for (const spec of command.options) {
    const input = document.getElementById(`opt-${spec.name}`);
    if (!input) continue;
    if (spec.type === TYPE.ATTACHMENT) {
      const file = input.files?.[0];
      if (file) options[spec.name] = {filename: file.name, content_base64: await base64(file)};
    } else if (input.value !== "" || spec.name === partial) {
      options[spec.name] = input.value;
    }
  }
  return options;
}

function base64(file) {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(",", 2)[1] || "");
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

function commandTarget() {
  return state.view.kind === "dm" ? null : state.view.id;
}

async function autocomplete(spec, list) {
  const command = currentCommand();
  if (!command) return;
  try {
    const data = await api("POST", `/api/people/${state.actingAs}/autocomplete`, {
      channel_id: commandTarget(), command: command.command, group: command.group,
      subcommand: command.subcommand, options: await formOptions(command, spec.name), focused: spec.name,
    });
    list.replaceChildren(...data.choices.map((c) => el("option", {value: String(c.value), label: c.name, text: c.name})));
  } catch (error) {
    setStatus(t("autocomplete_failed", {error: error.message}), "error");
  }
}

$("command-select").addEventListener("change", renderOptions);

$("slash-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const command = currentCommand();
  if (!command) { setStatus(t("choose_first"), "error"); $("command-select").focus(); return; }
  // Checked here as Discord's client does: a required option left empty is not sent.
  const missing = command.options.filter((spec) => {
    const input = document.getElementById(`opt-${spec.name}`);
    const empty = !input || (spec.type === TYPE.ATTACHMENT ? !input.files?.length : input.value === "");
    if (input && spec.required && empty) input.setAttribute("aria-invalid", "true");
    else if (input) input.removeAttribute("aria-invalid");
    return spec.required && empty;
  });
  if (missing.length) {
    const names = missing.map((spec) => spec.name).join(", ");
    setStatus(t("missing_options", {command: command.path, names, count: missing.length}), "error");
    document.getElementById(`opt-${missing[0].name}`)?.focus();
    return;
  }
  const userId = state.actingAs;
  const options = await formOptions(command);
  await act(t("ran_command", {name: person(userId).name, command: command.path}), () =>
    api("POST", `/api/people/${userId}/slash`, {
      channel_id: commandTarget(), command: command.command, group: command.group,
      subcommand: command.subcommand, options,
    }), (summary) => {
      guideAfterCommand(command.path, options, summary);
      // As Discord's box empties after a command: the form shrinks to one line again.
      $("command-select").value = "";
      renderOptions();
    });
});

// -- the guide: the next step of a first duel, and a button that fills the form for it --

function commanderId() {
  return state.world.people.find((p) => p.role === "commander")?.id || state.world.people[0].id;
}

function duellists() {
  return state.world.people.filter((p) => p.role === "duellist").slice(0, 2);
}

function guideAfterCommand(path, options, summary) {
  const guide = state.guide;
  if (path === "stats set" && options.member) guide.stats.add(options.member);
  // The guide teaches a rule 2.14 duel (its own /duel start, "evade" typed, a commander
  // closing each round): a duel of another ruleset, whose steps may close by themselves,
  // is not followed.
  if (path === "duel start" && (!options.ruleset || options.ruleset === "rule-2.14")) {
    const found = /Duel #(\d+)/.exec(summary);
    if (found) Object.assign(guide, {duel: found[1], round: 0, roundOpen: false, over: false, exported: false});
  }
  if (path === "round open" && String(options.duel) === guide.duel) {
    // "Round 3 of duel #1 is open", "Step 2 ...": the ruleset's own noun leads the reply.
    const found = /^[A-Z][a-z]+ (\d+)/.exec(summary);
    if (found) Object.assign(guide, {roundOpen: true, round: Number(found[1])});
    if (found) guide.moved.clear();
    if (/has ended/.test(summary)) Object.assign(guide, {roundOpen: false, over: true});
  }
  if (path === "round close" && String(options.duel) === guide.duel) {
    guide.roundOpen = false;
    if (/duel is over/.test(summary)) guide.over = true;
  }
  if (path === "duel export" && String(options.duel) === guide.duel) guide.exported = true;
}

/** The next step: {text, button, fill} or null once a first round is done. */
function nextStep() {
  const guide = state.guide;
  const [a, b] = duellists();
  if (!a || !b) return null;
  const stats = {[a.id]: ["5", "3"], [b.id]: ["4", "2"]};
  for (const p of [a, b]) {
    if (!guide.stats.has(p.id)) {
      return {
        text: t("guide_stats", {name: p.name}),
        button: t("guide_stats_button", {name: p.name}),
        fill: () => fillCommand("stats set", {member: p.id, str: stats[p.id][0], agi: stats[p.id][1]}),
      };
    }
  }
  if (!guide.duel) {
    return {
      text: t("guide_start", {a: a.name, b: b.name}),
      button: t("guide_start_button"),
      fill: () => fillCommand("duel start", {a: a.id, b: b.id, ruleset: "rule-2.14"}),
    };
  }
  if (guide.over) {
    if (guide.exported) return null;  // a whole duel played and exported: the guide is done
    return {
      text: t("guide_export", {duel: guide.duel}),
      button: t("guide_export_button"),
      fill: () => fillCommand("duel export", {duel: guide.duel, format: "html"}),
    };
  }
  if (!guide.roundOpen) {
    return {
      text: t(guide.round ? "guide_open_next" : "guide_open_first", {duel: guide.duel}),
      button: t("guide_open_button"),
      fill: () => fillCommand("round open", {duel: guide.duel}),
    };
  }
  const waiting = [a, b].find((p) => !guide.moved.has(p.id));
  if (waiting) {
    return {
      text: t("guide_move", {name: waiting.name}),
      button: t("guide_move_button", {name: waiting.name}),
      fill: async () => {
        await show({kind: "dm", userId: waiting.id});
        $("dm-input").value = "evade";
        $("dm-input").focus();
      },
    };
  }
  return {
    text: t("guide_close", {round: guide.round, duel: guide.duel}),
    button: t("guide_close_button"),
    fill: () => fillCommand("round close", {duel: guide.duel}),
  };
}

/** Go to the duel channel as the commander, pick ``path`` and fill its fields. */
async function fillCommand(path, values) {
  state.channelActor = commanderId();
  await show({kind: "channel", id: state.world.duel_channel_id});
  const select = $("command-select");
  select.value = path;
  renderOptions();
  for (const [name, value] of Object.entries(values)) {
    const input = document.getElementById(`opt-${name}`);
    if (!input) continue;
    if (input.tagName === "SELECT" && ![...input.options].some((o) => o.value === value)) continue;
    input.value = value;
  }
  setStatus(t("filled_in", {command: path}), "idle");
  $("run-command").focus();
}

function guideNode(className) {
  const step = nextStep();
  if (!step) return null;
  const button = el("button", {type: "button", class: "guide-fill", text: step.button});
  button.addEventListener("click", async () => {
    document.body.dataset.guide = "filling";  // tests wait for "filled"
    await step.fill();
    document.body.dataset.guide = "filled";
  });
  return el("div", {class: className}, el("p", {class: "guide-text", text: step.text}), button);
}

/** The guide bar above the form (not when the empty channel already shows the step). */
function renderGuide(emptyView) {
  const bar = $("guide");
  const node = emptyView ? null : guideNode("guide-bar");
  bar.replaceChildren(...(node ? node.childNodes : []));
  bar.hidden = !node;
}

// -- live updates ----------------------------------------------------------------------

async function loadCommands() {
  state.commands = (await api("GET", "/api/commands")).commands;
  renderCommandSelect();
}

async function follow() {
  for (;;) {
    try {
      const {revision} = await api("GET", `/api/changes?since=${state.revision}`);
      $("live").dataset.state = "live";
      $("live").firstElementChild.textContent = t("live");
      if (revision !== state.revision) {
        state.revision = revision;
        const channelCount = state.world.channels.length;
        await loadWorld();
        if (state.world.channels.length !== channelCount || !state.commands.length) await loadCommands();
        await refreshMessages(false);
      }
    } catch (error) {
      $("live").dataset.state = "error";
      $("live").firstElementChild.textContent = t("unreachable");
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function start() {
  await loadWorld();
  state.channelActor = commanderId();
  await loadCommands();
  await show({kind: "channel", id: state.world.duel_channel_id});
  document.body.dataset.ready = "1";
  follow();
}

start().catch((error) => setStatus(t("load_failed", {error: error.message}), "error"));
