// The playground: a Discord-like client that acts only through the sandbox's control API.
"use strict";

const API = "/_sandbox";
const BUTTON = 2, ROW = 1, STRING_SELECT = 3;
const SUB_COMMAND = 1, SUB_COMMAND_GROUP = 2, BOOLEAN = 5, USER = 6, CHANNEL = 7;
const STYLES = { 1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link" };
const $ = (id) => document.getElementById(id);
// Discord's eye icon before "Only you can see this" (drawn, so it needs no emoji font).
const EYE = '<svg class="eye" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true"><path fill="currentColor" d="M12 5C5.6 5 2 12 2 12s3.6 7 10 7 10-7 10-7-3.6-7-10-7Zm0 11a4 4 0 1 1 0-8 4 4 0 0 1 0 8Zm0-6a2 2 0 1 0 0 4 2 2 0 0 0 0-4Z"/></svg>';

const state = {
  world: null,       // GET /_sandbox/state
  commands: [],      // the synced commands' schemas
  member: null,      // the user this tab acts as (a name)
  view: null,        // {kind: "channel", id} or {kind: "dm"}
  rendered: new Map(), // message id -> {json, element}
  dismissed: new Set(), // ephemeral messages this tab dismissed
  failures: new Map(),  // message id -> "This interaction failed" note
  commandsSeen: "",    // the command names the commands were fetched for
  dmChannel: null,     // the member's DM channel, once the bot wrote there
  refreshing: null, again: false,
};

// ------------------------------------------------------------------ control API

async function call(method, path, body) {
  const response = await fetch(API + path, {
    method,
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || `${response.status}`);
  return data;
}

const interact = (body) => call("POST", "/interactions", { user: state.member, ...body });

// ------------------------------------------------------------------ text

function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function userName(id) {
  const users = state.world ? state.world.users : [];
  const user = users.find((u) => u.id === id) || (state.world && state.world.bot.id === id && state.world.bot);
  return user ? user.name : "unknown-user";
}

function channelName(id) {
  for (const guild of state.world ? state.world.guilds : []) {
    const channel = guild.channels.find((c) => c.id === id);
    if (channel) return channel.name;
  }
  return "unknown-channel";
}

// Discord's markdown subset the bot writes: code, bold, italic, underline, strike,
// quotes, headings, subtext; mentions show as names.
function inline(text) {
  const codes = [];
  let html = escapeHtml(text).replace(/`([^`\n]+)`/g, (_, code) => {
    codes.push(`<code>${code}</code>`);
    return `\u0000${codes.length - 1}\u0000`;
  });
  html = html
    .replace(/&lt;@!?(\d+)&gt;/g, (_, id) => `<span class="mention">@${escapeHtml(userName(id))}</span>`)
    .replace(/&lt;#(\d+)&gt;/g, (_, id) => `<span class="mention">#${escapeHtml(channelName(id))}</span>`)
    .replace(/&lt;@&amp;(\d+)&gt;/g, () => `<span class="mention">@role</span>`)
    .replace(/\*\*\*(.+?)\*\*\*/g, "<strong><em>$1</em></strong>")
    .replace(/\*\*(.+?)\*\*/g, "<strong>$1</strong>")
    .replace(/__(.+?)__/g, "<u>$1</u>")
    .replace(/~~(.+?)~~/g, "<s>$1</s>")
    .replace(/(^|[^*\w])\*(?!\s)(.+?)\*(?![*\w])/g, "$1<em>$2</em>")
    .replace(/(^|[^_\w])_(?!\s)(.+?)_(?![_\w])/g, "$1<em>$2</em>");
  return html.replace(/\u0000(\d+)\u0000/g, (_, i) => codes[Number(i)]);
}

function markdown(text) {
  const parts = text.split(/```(?:[a-z]*\n)?([\s\S]*?)```/);
  return parts.map((part, i) => {
    if (i % 2 === 1) return `<pre><code>${escapeHtml(part)}</code></pre>`;
    return part.split("\n").map((line) => {
      let m;
      if ((m = line.match(/^(#{1,3}) (.*)$/))) return `<span class="md-h${m[1].length}">${inline(m[2])}</span>`;
      if ((m = line.match(/^-# (.*)$/))) return `<span class="subtext">${inline(m[1])}</span>`;
      if ((m = line.match(/^> (.*)$/))) return `<blockquote>${inline(m[1])}</blockquote>`;
      return inline(line);
    }).join("\n").replace(/<\/blockquote>\n/g, "</blockquote>");
  }).join("");
}

function element(tag, className, html) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (html !== undefined) node.innerHTML = html;
  return node;
}

// ------------------------------------------------------------------ messages

function attachmentUrl(message, url) {
  if (!url || !url.startsWith("attachment://")) return url;
  const index = message.attachments.indexOf(url.slice("attachment://".length));
  return index >= 0 ? message.attachment_urls[index] : null;
}

function renderEmbed(message, embed) {
  const node = element("div", "embed");
  node.style.borderLeftColor = embed.color != null ? `#${embed.color.toString(16).padStart(6, "0")}` : "";
  if (embed.author && embed.author.name) node.append(element("div", "embed-author", escapeHtml(embed.author.name)));
  if (embed.title) node.append(element("div", "embed-title", inline(embed.title)));
  if (embed.description) node.append(element("div", "embed-description", markdown(embed.description)));
  const fields = embed.fields || [];
  if (fields.length) {
    // Discord puts up to three inline fields side by side; a field that is not inline has its own row.
    const box = element("div", "embed-fields");
    let row = null;
    for (const field of fields) {
      if (!field.inline || !row || row.children.length === 3) {
        row = element("div", "embed-row");
        box.append(row);
      }
      const cell = element("div", "embed-field");
      cell.append(element("div", "embed-field-name", inline(field.name)));
      cell.append(element("div", "embed-field-value", markdown(field.value)));
      row.append(cell);
      row.style.gridTemplateColumns = `repeat(${row.children.length}, 1fr)`;
      if (!field.inline) row = null;
    }
    node.append(box);
  }
  for (const key of ["image", "thumbnail"]) {
    const src = embed[key] && attachmentUrl(message, embed[key].url);
    if (src) {
      const figure = element("div", "embed-image");
      const img = element("img");
      keepInSight(img);
      img.src = src;
      img.alt = key;
      figure.append(img);
      node.append(figure);
    }
  }
  if (embed.footer && embed.footer.text) node.append(element("div", "embed-footer", escapeHtml(embed.footer.text)));
  return node;
}

function embedFiles(message) {
  const used = new Set();
  for (const embed of message.embeds) {
    for (const key of ["image", "thumbnail"]) {
      const url = embed[key] && embed[key].url;
      if (url && url.startsWith("attachment://")) used.add(url.slice("attachment://".length));
    }
  }
  return used;
}

async function clicked(message, component, button) {
  button.classList.add("busy");
  await send(message.id, { type: "button", message: message.id, custom_id: component.custom_id });
  button.classList.remove("busy");
}

async function send(messageId, body) {
  try {
    const result = await interact(body);
    if (result.status !== "answered") state.failures.set(messageId, "This interaction failed");
    else state.failures.delete(messageId);
  } catch (error) {
    state.failures.set(messageId, error.message);
  }
  await refresh();
}

function renderButton(message, component) {
  const style = STYLES[component.style] || "secondary";
  if (style === "link") {
    const link = element("a", "button link", escapeHtml(component.label || ""));
    link.href = component.url;
    link.target = "_blank";
    link.rel = "noopener";
    return link;
  }
  const button = element("button", `button ${style}`, escapeHtml(component.label || ""));
  button.type = "button";
  button.dataset.customId = component.custom_id;
  button.disabled = Boolean(component.disabled);
  button.addEventListener("click", () => clicked(message, component, button));
  return button;
}

function renderSelect(message, component) {
  const low = component.min_values ?? 1, high = component.max_values ?? 1;
  const options = component.options || [];
  const chosen = new Set(options.filter((o) => o.default).map((o) => o.value));
  const node = element("div", "select" + (component.disabled ? " disabled" : ""));
  node.dataset.customId = component.custom_id;
  const box = element("div", "select-box");
  const shown = () => {
    const labels = options.filter((o) => chosen.has(o.value)).map((o) => o.label);
    box.innerHTML = labels.length
      ? `<span class="chosen">${escapeHtml(labels.join(", "))}</span>`
      : `<span class="placeholder">${escapeHtml(component.placeholder || "Make a selection")}</span>`;
    box.append(element("span", "chevron", "⌄"));
  };
  shown();
  node.append(box);
  if (component.type !== STRING_SELECT || component.disabled) return node;
  let menu = null;
  const close = (submit) => {
    if (!menu) return;
    menu.remove();
    menu = null;
    node.classList.remove("open", "up");
    document.removeEventListener("mousedown", outside);
    if (submit && high > 1 && chosen.size >= low) {
      send(message.id, { type: "select", message: message.id, custom_id: component.custom_id, values: [...chosen] });
    }
  };
  const outside = (event) => { if (!node.contains(event.target)) close(true); };
  box.addEventListener("click", () => {
    if (menu) return close(true);
    chosen.clear();
    menu = element("div", "select-menu");
    menu.setAttribute("role", "listbox");
    if (high > 1) menu.append(element("div", "select-hint", escapeHtml(low === high ? `Choose ${low}` : `Choose ${low} to ${high}`)));
    for (const option of options) {
      const item = element("div", "select-option");
      item.dataset.value = option.value;
      item.setAttribute("role", "option");
      if (high > 1) item.append(element("span", "tick"));
      const text = element("div", "text");
      text.append(element("div", "label", escapeHtml(option.label)));
      if (option.description) text.append(element("div", "description", escapeHtml(option.description)));
      item.append(text);
      item.addEventListener("click", () => {
        if (high === 1) {
          chosen.add(option.value);
          shown();
          close(false);
          send(message.id, { type: "select", message: message.id, custom_id: component.custom_id, values: [option.value] });
          return;
        }
        if (chosen.has(option.value)) chosen.delete(option.value);
        else if (chosen.size < high) chosen.add(option.value);
        item.classList.toggle("chosen", chosen.has(option.value));
        shown();
      });
      menu.append(item);
    }
    node.append(menu);
    node.classList.add("open");
    // Like Discord's, a menu without room below the box opens upwards.
    if (menu.getBoundingClientRect().bottom > $("messages").getBoundingClientRect().bottom) node.classList.add("up");
    document.addEventListener("mousedown", outside);
  });
  return node;
}

function renderComponents(message) {
  const box = element("div", "components");
  for (const row of message.components) {
    if (row.type !== ROW) continue;
    const line = element("div", "row");
    for (const component of row.components) {
      line.append(component.type === BUTTON ? renderButton(message, component) : renderSelect(message, component));
    }
    box.append(line);
  }
  return box;
}

function renderMessage(message) {
  const me = currentUser();
  const node = element("div", "message");
  node.dataset.messageId = message.id;
  if (message.ephemeral) node.classList.add("ephemeral");
  if (me && message.content.includes(`<@${me.id}>`)) node.classList.add("mentioned");
  const avatar = element("div", "avatar" + (message.author.bot ? " bot" : ""), escapeHtml(message.author.name[0] || "?"));
  const body = element("div", "body");
  const head = element("div", "head");
  head.append(element("span", "author", escapeHtml(message.author.name)));
  if (message.author.bot) head.append(element("span", "tag", "App"));
  if (message.edited) head.append(element("span", "edited", "(edited)"));
  body.append(head);
  if (message.loading) body.append(element("div", "loading", `${escapeHtml(message.author.name)} is thinking…`));
  if (message.content) body.append(element("div", "content", markdown(message.content)));
  for (const embed of message.embeds) body.append(renderEmbed(message, embed));
  const inEmbeds = embedFiles(message);
  message.attachments.forEach((name, i) => {
    if (inEmbeds.has(name)) return;
    const box = element("div", "attachment");
    const img = element("img");
    keepInSight(img);
    img.src = message.attachment_urls[i];
    img.alt = name;
    box.append(img);
    body.append(box);
  });
  if (message.components.length) body.append(renderComponents(message));
  const failure = state.failures.get(message.id);
  if (failure) body.append(element("div", "failed-note", escapeHtml(failure)));
  if (message.ephemeral) {
    const note = element("div", "ephemeral-note", `${EYE} Only you can see this · `);
    const dismiss = element("a", "", "Dismiss message");
    dismiss.addEventListener("click", () => {
      state.dismissed.add(message.id);
      refresh();
    });
    note.append(dismiss);
    body.append(note);
  }
  node.append(avatar, body);
  return node;
}

function atBottom(list) {
  return list.scrollHeight - list.scrollTop - list.clientHeight < 40;
}

// A picture that loads later keeps the newest message in sight, as long as it was.
function keepInSight(img) {
  const list = $("messages");
  const stick = atBottom(list);
  img.addEventListener("load", () => { if (stick) list.scrollTop = list.scrollHeight; });
}

function renderMessages(messages) {
  const list = $("messages");
  const stick = atBottom(list);
  const shown = messages.filter((m) => !state.dismissed.has(m.id));
  const keep = new Set(shown.map((m) => m.id));
  for (const [id, entry] of state.rendered) {
    if (!keep.has(id)) {
      entry.element.remove();
      state.rendered.delete(id);
    }
  }
  list.querySelector(".empty")?.remove();
  let previous = null;
  for (const message of shown) {
    // A message is drawn again only when what it shows changed (an open menu stays open).
    const json = JSON.stringify([message, state.failures.get(message.id) || null]);
    let entry = state.rendered.get(message.id);
    if (!entry || entry.json !== json) {
      const fresh = renderMessage(message);
      if (entry) entry.element.replaceWith(fresh);
      entry = { json, element: fresh };
      state.rendered.set(message.id, entry);
    }
    const expected = previous ? previous.nextSibling : list.firstChild;
    if (expected !== entry.element) list.insertBefore(entry.element, expected);
    previous = entry.element;
  }
  if (!shown.length) list.append(element("div", "empty", emptyText()));
  if (stick) list.scrollTop = list.scrollHeight;
}

function emptyText() {
  if (state.view.kind === "dm") {
    const me = currentUser();
    return me && !me.dms_open
      ? "Your direct messages are closed: the bot shows you your cards only you can see in the channel (My hand)."
      : "No direct messages yet: the bot writes here once you sit at a table and the cards are dealt.";
  }
  return "No messages yet. Type /shithead create to open a table.";
}

// ------------------------------------------------------------------ world, channels, members

function guild() {
  return state.world.guilds[0];
}

function currentUser() {
  return state.world ? state.world.users.find((u) => u.name === state.member) : null;
}

function renderSidebar() {
  const g = guild();
  $("guild-name").textContent = g.name;
  $("server-icon").textContent = g.name[0];
  const channels = $("channels");
  channels.replaceChildren();
  for (const channel of g.channels) {
    const item = element("li", "", `<span class="hash">#</span>${escapeHtml(channel.name)}`);
    item.dataset.channel = channel.name;
    if (state.view.kind === "channel" && state.view.id === channel.id) item.classList.add("active");
    item.addEventListener("click", () => show({ kind: "channel", id: channel.id }));
    channels.append(item);
  }
  const dms = $("dms");
  dms.replaceChildren();
  if (state.member) {
    const item = element("li", "", `<div class="avatar bot small">${escapeHtml(state.world.bot.name[0])}</div>${escapeHtml(state.world.bot.name)}`);
    item.dataset.channel = "@dm";
    if (state.view.kind === "dm") item.classList.add("active");
    item.addEventListener("click", () => show({ kind: "dm" }));
    dms.append(item);
  }
  const picker = $("member");
  const names = state.world.users.map((u) => u.name);
  if ([...picker.options].map((o) => o.value).join("\n") !== names.join("\n")) {
    picker.replaceChildren(...names.map((name) => new Option(name, name)));
  }
  picker.value = state.member || "";
  $("me-avatar").textContent = state.member ? state.member[0] : "?";
}

function renderTitle() {
  if (state.view.kind === "dm") {
    $("title").querySelector(".hash").textContent = "@";
    $("title-text").textContent = state.world.bot.name;
    $("box").placeholder = `Message @${state.world.bot.name}`;
  } else {
    const name = channelName(state.view.id);
    $("title").querySelector(".hash").textContent = "#";
    $("title-text").textContent = name;
    $("box").placeholder = `Message #${name} — type / for commands`;
  }
}

function show(view) {
  state.view = view;
  state.rendered.forEach((entry) => entry.element.remove());
  state.rendered.clear();
  refresh();
}

function chooseMember(name) {
  state.member = name;
  history.replaceState(null, "", `#${encodeURIComponent(name)}`);
  show(state.view);
}

async function loadMessages() {
  if (!state.member) return [];
  if (state.view.kind === "dm") {
    const dms = await call("GET", `/users/${encodeURIComponent(state.member)}/dms?limit=50`);
    state.dmChannel = dms.length ? dms[0].channel_id : null;
    return dms;
  }
  return call("GET", `/channels/${state.view.id}/messages?as=${encodeURIComponent(state.member)}&limit=50`);
}

async function refreshOnce() {
  state.world = await call("GET", "/state");
  if (!state.view) state.view = { kind: "channel", id: guild().channels[0].id };
  if (state.member && !currentUser()) state.member = null;
  if (state.commandsSeen !== JSON.stringify(state.world.commands)) {
    state.commands = await (await fetch("/playground/commands")).json();
    state.commandsSeen = JSON.stringify(state.world.commands);
  }
  renderSidebar();
  renderTitle();
  renderMessages(await loadMessages());
  if (!state.member && !$("member-dialog").open) openMemberDialog();
}

// One refresh at a time; a change during one asks for one more after it.
async function refresh() {
  if (state.refreshing) {
    state.again = true;
    return state.refreshing;
  }
  state.refreshing = (async () => {
    do {
      state.again = false;
      try {
        await refreshOnce();
      } catch (error) {
        showComposerError(`The sandbox did not answer (${error.message}). Is make run still going?`);
      }
    } while (state.again);
    state.refreshing = null;
  })();
  return state.refreshing;
}

function openMemberDialog() {
  $("member-error").hidden = true;
  $("member-name").value = "";
  $("member-cancel").hidden = !state.member;
  $("member-dialog").showModal();
}

async function createMember(event) {
  event.preventDefault();
  const name = $("member-name").value.trim();
  try {
    await call("POST", "/users", {
      name,
      locale: $("member-locale").value,
      dms_open: $("member-dms").checked,
      moderator: $("member-mod").checked,
    });
  } catch (error) {
    $("member-error").textContent = error.message;
    $("member-error").hidden = false;
    return;
  }
  $("member-dialog").close();
  chooseMember(name);
}

// ------------------------------------------------------------------ live changes

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/playground/live`);
  socket.addEventListener("open", () => $("connection").classList.remove("offline"));
  socket.addEventListener("message", () => refresh());
  socket.addEventListener("close", () => {
    $("connection").classList.add("offline");
    setTimeout(connect, 1000);
  });
}

// ------------------------------------------------------------------ slash commands

// Every runnable command path ("shithead create") with its description and options.
function commandPaths() {
  const paths = [];
  const walk = (prefix, option) => {
    const subs = (option.options || []).filter((o) => o.type === SUB_COMMAND || o.type === SUB_COMMAND_GROUP);
    if (!subs.length) {
      paths.push({ path: prefix, description: option.description || "", options: option.options || [] });
      return;
    }
    for (const sub of subs) walk(`${prefix} ${sub.name}`, sub);
  };
  for (const command of state.commands) walk(command.name, command);
  return paths.sort((a, b) => a.path.localeCompare(b.path));
}

// Read "/shithead create preset:du" into the command, its options so far, the option whose
// value is being typed (focused) and a partly typed option name (stray).
function parseCommand(text) {
  const rest = text.slice(1);
  const known = commandPaths().filter((c) => rest === c.path || rest.startsWith(c.path + " "));
  if (!known.length) return { command: null, typed: rest };
  const command = known.sort((a, b) => b.path.length - a.path.length)[0];
  const args = rest.slice(command.path.length);
  const names = command.options.map((o) => o.name);
  const marks = [...args.matchAll(/(?:^|\s)([\w-]+):/g)].filter((m) => names.includes(m[1]));
  const given = {};
  marks.forEach((mark, i) => {
    const end = i + 1 < marks.length ? marks[i + 1].index : args.length;
    given[mark[1]] = args.slice(mark.index + mark[0].length, end).trim();
  });
  const last = marks[marks.length - 1];
  const tail = last ? args.slice(last.index + last[0].length) : args;
  let focused = null, stray = "";
  if (!/\s$/.test(args)) {
    if (last && !/\S\s/.test(tail.trimStart())) focused = last[1];
    else {
      stray = tail.split(/\s+/).pop();
      if (last) given[last[1]] = tail.slice(0, tail.length - stray.length).trim();
    }
  } else if (last && !tail.trim()) focused = last[1];
  return { command, given, focused, stray };
}

let autocompleteTimer = null;
let suggestionList = [];
let activeSuggestion = 0;
let enterApplies = false; // Enter takes the suggestion (a command, a value), else sends

function showSuggestions(heading, items, applies = true) {
  enterApplies = applies;
  suggestionList = items;
  activeSuggestion = 0;
  const box = $("suggestions");
  box.replaceChildren();
  if (!items.length) {
    box.hidden = true;
    return;
  }
  box.append(element("div", "heading", escapeHtml(heading)));
  items.forEach((item, i) => {
    const row = element("div", "suggestion" + (i === 0 ? " active" : ""));
    row.setAttribute("role", "option");
    row.dataset.value = item.insert;
    row.append(element("span", "name", escapeHtml(item.name)));
    if (item.detail) row.append(element("span", "detail", escapeHtml(item.detail)));
    row.addEventListener("mousedown", (event) => {
      event.preventDefault();
      applySuggestion(i);
    });
    box.append(row);
  });
  box.hidden = false;
}

function applySuggestion(i) {
  const item = suggestionList[i];
  if (!item) return;
  $("box").value = item.insert;
  $("box").focus();
  suggest();
}

function optionItems(parsed, text) {
  return parsed.command.options
    .filter((o) => !(o.name in parsed.given))
    .filter((o) => o.name.startsWith(parsed.stray || ""))
    .map((o) => ({
      name: o.name,
      detail: `${o.description || ""}${o.required ? " (required)" : ""}`,
      insert: `${text.slice(0, text.length - (parsed.stray || "").length).replace(/\s*$/, " ")}${o.name}:`,
    }));
}

function valueItems(typed, choices, text) {
  const start = text.length - typed.length;
  return choices.map((c) => ({ name: c.name, detail: String(c.value) === c.name ? "" : String(c.value), insert: `${text.slice(0, start)}${c.value} ` }));
}

function suggest() {
  clearTimeout(autocompleteTimer);
  const text = $("box").value;
  hideComposerError();
  if (!text.startsWith("/")) {
    showSuggestions("", []);
    return;
  }
  const parsed = parseCommand(text);
  if (!parsed.command) {
    const items = commandPaths()
      .filter((c) => c.path.includes(parsed.typed.trim()))
      .map((c) => ({ name: `/${c.path}`, detail: c.description, insert: `/${c.path} ` }));
    showSuggestions(state.commands.length ? "Commands" : "No commands yet: is the bot connected?", items);
    return;
  }
  if (!parsed.focused) {
    // Enter takes a partly typed option's name; after a complete value it sends the command.
    showSuggestions(`/${parsed.command.path}`, optionItems(parsed, text), Boolean(parsed.stray));
    return;
  }
  const option = parsed.command.options.find((o) => o.name === parsed.focused);
  const typed = parsed.given[option.name] || "";
  let choices = option.choices || [];
  if (option.type === BOOLEAN) choices = [{ name: "True", value: "true" }, { name: "False", value: "false" }];
  if (option.type === USER) choices = state.world.users.map((u) => ({ name: u.name, value: u.name }));
  if (option.type === CHANNEL) choices = guild().channels.map((c) => ({ name: `#${c.name}`, value: c.name }));
  if (option.autocomplete) {
    // The bot's own answers, as Discord asks for them while you type.
    autocompleteTimer = setTimeout(async () => {
      try {
        const result = await interact({ type: "autocomplete", channel: channelRef(), name: parsed.command.path, focused: option.name, options: parsed.given });
        if ($("box").value !== text) return;
        const answers = result.status === "answered" ? result.response.choices : [];
        showSuggestions(`${option.name}: ${option.description || ""}`, valueItems(typed, answers, text));
      } catch (error) {
        showComposerError(error.message);
      }
    }, 150);
    return;
  }
  const lower = typed.toLowerCase();
  const fitting = choices.filter((c) => c.name.toLowerCase().includes(lower) || String(c.value).toLowerCase().includes(lower));
  showSuggestions(`${option.name}: ${option.description || ""}`, valueItems(typed, fitting, text));
}

// Where a command runs: the open channel, or the DM channel once the bot has written there.
function channelRef() {
  return state.view.kind === "channel" ? state.view.id : state.dmChannel;
}

function showComposerError(text) {
  $("composer-error").textContent = text;
  $("composer-error").hidden = false;
}

function hideComposerError() {
  $("composer-error").hidden = true;
}

async function submit(event) {
  event.preventDefault();
  const box = $("box");
  const text = box.value.trim();
  if (!text) return;
  if (!state.member) return openMemberDialog();
  if (!text.startsWith("/")) {
    showComposerError(`${state.world.bot.name} reads no messages: type / to see its commands.`);
    return;
  }
  if (!channelRef()) {
    showComposerError("Commands work here once the bot has written to you: use a channel.");
    return;
  }
  const parsed = parseCommand(text);
  if (!parsed.command) {
    showComposerError(`There is no command ${text.split(" ")[0]}: type / to see them.`);
    return;
  }
  const missing = parsed.command.options.filter((o) => o.required && !parsed.given[o.name]);
  if (missing.length) {
    showComposerError(`/${parsed.command.path} needs ${missing.map((o) => o.name).join(", ")}.`);
    return;
  }
  box.value = "";
  showSuggestions("", []);
  try {
    const result = await interact({ type: "command", channel: channelRef(), name: parsed.command.path, options: parsed.given });
    if (result.status !== "answered") showComposerError("The application did not respond.");
  } catch (error) {
    box.value = text;
    showComposerError(error.message);
  }
  await refresh();
}

function keydown(event) {
  const box = $("suggestions");
  if (box.hidden || !suggestionList.length) return;
  const rows = box.querySelectorAll(".suggestion");
  const move = (to) => {
    rows[activeSuggestion].classList.remove("active");
    activeSuggestion = (to + rows.length) % rows.length;
    rows[activeSuggestion].classList.add("active");
    rows[activeSuggestion].scrollIntoView({ block: "nearest" });
  };
  if (event.key === "ArrowDown") move(activeSuggestion + 1);
  else if (event.key === "ArrowUp") move(activeSuggestion - 1);
  else if (event.key === "Tab" || (event.key === "Enter" && enterApplies)) applySuggestion(activeSuggestion);
  else if (event.key === "Escape") showSuggestions("", []);
  else return;
  event.preventDefault();
}

// ------------------------------------------------------------------ start

function start() {
  const wanted = decodeURIComponent(location.hash.slice(1));
  state.member = wanted || null;
  $("member").addEventListener("change", (event) => chooseMember(event.target.value));
  $("new-member").addEventListener("click", openMemberDialog);
  $("member-form").addEventListener("submit", createMember);
  $("member-cancel").addEventListener("click", () => $("member-dialog").close());
  $("member-dialog").addEventListener("cancel", (event) => { if (!state.member) event.preventDefault(); });
  $("composer").addEventListener("submit", submit);
  $("box").addEventListener("input", suggest);
  $("box").addEventListener("keydown", keydown);
  $("box").addEventListener("blur", () => setTimeout(() => showSuggestions("", []), 150));
  connect();
  refresh();
}

start();
