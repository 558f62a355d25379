// duelbot sandbox page. Everything shown is built with textContent: names, messages and
// embeds come from members and the bot and are hostile input, never HTML.
"use strict";

const state = {
  world: null,
  commands: [],
  view: null,          // {kind: "channel", id} or {kind: "dm", userId}
  revision: -1,
  actingAs: null,      // user id (string)
  names: new Map(),    // user id -> display name, for mentions
  busy: false,
  rendered: "",        // what #messages shows now (view + messages), to skip needless renders
};

const $ = (id) => document.getElementById(id);

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

// -- text: a safe subset of Discord's markdown -----------------------------------------

const INLINE = /(\*\*[^*]+\*\*|__[^_]+__|\*[^*\s][^*]*\*|`[^`]+`|<@!?\d+>|<@&\d+>|<#\d+>|<t:-?\d+(?::[tTdDfFR])?>)/;

function renderInline(text, parent) {
  for (const piece of text.split(INLINE)) {
    if (!piece) continue;
    if (piece.startsWith("**") && piece.endsWith("**") && piece.length > 4) {
      parent.append(renderInlineInto(el("strong"), piece.slice(2, -2)));
    } else if (piece.startsWith("__") && piece.endsWith("__") && piece.length > 4) {
      parent.append(renderInlineInto(el("u"), piece.slice(2, -2)));
    } else if (piece.startsWith("*") && piece.endsWith("*") && piece.length > 2) {
      parent.append(renderInlineInto(el("em"), piece.slice(1, -1)));
    } else if (piece.startsWith("`") && piece.endsWith("`") && piece.length > 2) {
      parent.append(el("code", {text: piece.slice(1, -1)}));
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

function renderInlineInto(node, text) {
  return renderInline(text, node);
}

function formatStamp(seconds, style) {
  const date = new Date(seconds * 1000);
  if (style === "R") {
    const delta = Math.round((date.getTime() - Date.now()) / 1000);
    const units = [["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
    const [unit, size] = units.find(([, s]) => Math.abs(delta) >= s) || units[3];
    return new Intl.RelativeTimeFormat("en", {numeric: "auto"}).format(Math.round(delta / size), unit);
  }
  if (style === "t" || style === "T") return date.toLocaleTimeString();
  if (style === "d" || style === "D") return date.toLocaleDateString();
  return date.toLocaleString();
}

/** Text with ``` blocks as <pre> and the rest as inline markdown, into ``parent``. */
function renderText(text, parent) {
  const parts = String(text || "").split(/```/);
  parts.forEach((part, index) => {
    if (index % 2 === 1) {
      parent.append(el("pre", {text: part.replace(/^[a-z]*\n/, "")}));
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
  const footer = [embed.footer?.text, embed.timestamp && new Date(embed.timestamp).toLocaleString()]
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
        button.title = item.style === 5 ? "Links are not followed in the sandbox" : "";
        button.addEventListener("click", () => clickButton(clicker(), message.id, item.custom_id));
        rowNode.append(button);
      } else if (item.type === 3) {
        const select = el("select", {"data-custom-id": item.custom_id, disabled: Boolean(item.disabled)},
          el("option", {value: "", text: item.placeholder || "Choose…"}),
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

function renderMessage(message, clicker) {
  const author = message.author || {};
  const name = author.global_name || author.username || "?";
  const body = el("div", {class: "msg-body"});
  if (message.interaction?.user) {
    const used = message.interaction.command
      ? `${message.interaction.user.name} used ${message.interaction.command}`
      : `${message.interaction.user.name} clicked a button`;
    body.append(el("div", {class: "used", text: "↱ " + used}));
  }
  const header = el("div", {class: "msg-header"}, el("span", {class: "author", text: name}));
  if (author.bot) header.append(el("span", {class: "tag", text: message.webhook_id && !message.interaction ? "APP" : "BOT"}));
  header.append(el("time", {text: new Date(message.timestamp).toLocaleTimeString(),
    dateTime: message.timestamp}));
  body.append(header);
  if (message.loading) {
    body.append(el("div", {class: "loading", text: `${name} is thinking…`}));
  } else if (message.content) {
    body.append(renderText(message.content, el("div", {class: "content"})));
  }
  for (const embed of message.embeds || []) body.append(renderEmbed(embed));
  for (const file of message.attachments || []) {
    body.append(el("div", {class: "note", text: "📎 " + file.filename}));
  }
  if (message.components?.length) body.append(renderComponents(message, clicker));
  if (message.ephemeral) body.append(el("div", {class: "only-you", text: "Only you can see this"}));
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
}

function viewTitle() {
  if (state.view.kind === "dm") {
    const p = person(state.view.userId);
    return [`Direct messages: ${p.name} and ${state.world.bot.name}`,
      `You are ${p.name} here: what you type goes to the bot as a DM, buttons are clicked as ${p.name}.`];
  }
  const ch = state.world.channels.find((c) => c.id === state.view.id);
  const actor = person(state.actingAs);
  return [(ch?.thread ? "🧵 " : "# ") + (ch?.name || state.view.id),
    `Commands run here as ${actor.name}; replies only ${actor.name} may see are marked.`];
}

async function show(view) {
  state.view = view;
  if (view.kind === "dm") state.actingAs = view.userId;
  const [title, note] = viewTitle();
  $("view-title").textContent = title;
  $("view-note").textContent = note;
  $("dm-form").hidden = view.kind !== "dm";
  renderSidebar();
  renderCommandSelect();
  await refreshMessages(true);
}

async function refreshMessages(scrollToEnd) {
  const box = $("messages");
  const atEnd = box.scrollHeight - box.scrollTop - box.clientHeight < 40;
  let messages;
  let clicker;
  if (state.view.kind === "dm") {
    const owner = state.view.userId;
    messages = (await api("GET", `/api/people/${owner}/dms`)).messages;
    clicker = () => owner;
  } else {
    const data = await api("GET", `/api/channels/${state.view.id}/messages?as=${state.actingAs}`);
    messages = data.messages;
    clicker = () => state.actingAs;
  }
  // Re-render only what changed: buttons are not swapped under the pointer for nothing.
  const key = JSON.stringify([state.view, state.actingAs, messages]);
  if (key === state.rendered) return;
  state.rendered = key;
  box.replaceChildren(...messages.map((m) => renderMessage(m, clicker)));
  if (!messages.length) box.append(el("p", {class: "note", text: "No messages yet."}));
  box.dataset.count = String(messages.length);
  if (scrollToEnd || atEnd) box.scrollTop = box.scrollHeight;
}

// -- acting ----------------------------------------------------------------------------

async function act(label, call) {
  setStatus(label + "…", "busy");
  try {
    const result = await call();
    const reply = result?.reply;
    const summary = reply
      ? [reply.content, ...(reply.embeds || []).map((e) => e.title || e.description)].filter(Boolean).join(" — ")
      : "";
    setStatus(summary ? `${label}: ${summary}` : `${label}: done`, "done");
  } catch (error) {
    setStatus(`${label}: ${error.message}`, "error");
  }
  await refreshMessages(true);
}

function clickButton(userId, messageId, customId, values) {
  return act(`${person(userId).name} clicked`, () =>
    api("POST", `/api/people/${userId}/click`, {message_id: messageId, custom_id: customId, values}));
}

$("dm-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = $("dm-input");
  const content = input.value;
  if (!content.trim()) return;
  const userId = state.view.userId;
  input.value = "";
  act(`${person(userId).name} sent a DM`, () =>
    api("POST", `/api/people/${userId}/dm`, {content}));
});

$("acting-as").addEventListener("change", (event) => {
  state.actingAs = event.target.value;
  if (state.view.kind === "dm") show({kind: "dm", userId: state.actingAs});
  else show(state.view);
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
  select.replaceChildren(el("option", {value: "", text: "Choose a command…"}),
    ...usableCommands().map((c) => el("option", {value: c.path, text: "/" + c.path})));
  if ([...select.options].some((o) => o.value === before)) select.value = before;
  // Keep what was typed into the form when the same command stays selected.
  if (select.value !== before || !$("command-options").childElementCount) renderOptions();
}

function optionInput(spec) {
  const name = `opt-${spec.name}`;
  const people = state.world.people;
  const choose = (items) => el("select", {name, id: name},
    el("option", {value: "", text: spec.required ? "Choose…" : "(none)"}),
    ...items.map(([value, label]) => el("option", {value, text: label})));
  if (spec.choices?.length) return choose(spec.choices.map((c) => [String(c.value), c.name]));
  switch (spec.type) {
    case TYPE.BOOLEAN: return choose([["true", "True"], ["false", "False"]]);
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
    const field = el("div", {class: "field", "data-option": spec.name},
      el("label", {htmlFor: input.id}, spec.name, spec.required ? el("span", {class: "req", text: "*"}) : null),
      input, el("small", {text: spec.description || ""}));
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
    setStatus(`Autocomplete: ${error.message}`, "error");
  }
}

$("command-select").addEventListener("change", renderOptions);

$("slash-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const command = currentCommand();
  if (!command) { setStatus("Choose a command first.", "error"); return; }
  const userId = state.actingAs;
  const options = await formOptions(command);
  await act(`${person(userId).name} ran /${command.path}`, () =>
    api("POST", `/api/people/${userId}/slash`, {
      channel_id: commandTarget(), command: command.command, group: command.group,
      subcommand: command.subcommand, options,
    }));
});

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
      $("live").textContent = "live";
      if (revision !== state.revision) {
        state.revision = revision;
        const channelCount = state.world.channels.length;
        await loadWorld();
        if (state.world.channels.length !== channelCount || !state.commands.length) await loadCommands();
        await refreshMessages(false);
      }
    } catch (error) {
      $("live").dataset.state = "error";
      $("live").textContent = "sandbox not reachable; retrying";
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function start() {
  await loadWorld();
  state.actingAs = state.world.people.find((p) => p.role === "commander")?.id || state.world.people[0].id;
  await loadCommands();
  await show({kind: "channel", id: state.world.duel_channel_id});
  document.body.dataset.ready = "1";
  follow();
}

start().catch((error) => setStatus(`Could not load the sandbox: ${error.message}`, "error"));
