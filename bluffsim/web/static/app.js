// bluffsim serve: the game page.  It shows what the server sends for this seat (GET
// /api/game/ID) and sends the moves (POST /api/game/ID/move); the server keeps the game, checks
// every move and plays the agents.  This tab's id (sessionStorage) tells the server which tab
// plays the game.  body[data-state] is "turn", "over", "error" or "busy"; body[data-decision]
// the decision shown (the test suite waits on them).
"use strict";
(function () {
  const gid = document.body.dataset.game;
  const tab = sessionStorage.getItem("bluffsim-tab") ||
    (window.crypto && crypto.randomUUID ? crypto.randomUUID() : String(Math.random()).slice(2));
  sessionStorage.setItem("bluffsim-tab", tab);
  const $ = (id) => document.getElementById(id);
  let shown = null;

  async function call(method, path, body) {
    let response;
    try {
      response = await fetch(path, {
        method, cache: "no-store",
        headers: {"Content-Type": "application/json", "X-Bluffsim-Tab": tab},
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (e) {
      return {ok: false, status: 0, data: {error: "the server does not answer (is bluffsim serve still running?)"}};
    }
    let data;
    try { data = await response.json(); } catch (e) { data = {error: `the server answered ${response.status}`}; }
    return {ok: response.ok, status: response.status, data};
  }

  function say(text, canClaim) {
    $("message").hidden = !text;
    $("message-text").textContent = text || "";
    $("claim").hidden = !canClaim;
  }

  function setState(state) {
    document.body.dataset.state = state;
  }

  function lines(list) {
    return list.join("\n").replace(/^\n+/, "");
  }

  function renderHistory(history) {
    const ol = $("history");
    ol.replaceChildren(...history.map((entry) => {
      const li = document.createElement("li");
      li.textContent = lines(entry.lines);
      if (entry.seat === null) li.className = "deal";
      else if (shown && entry.seat === shown.seat) li.className = "you";
      return li;
    }));
    ol.scrollTop = ol.scrollHeight;
  }

  function renderActions(actions) {
    $("actions").replaceChildren(...actions.map((a) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "action";
      button.dataset.action = a.id;
      const text = document.createElement("span");
      text.className = "notation";
      text.textContent = a.text;
      button.append(text);
      if (a.gloss) {
        const gloss = document.createElement("span");
        gloss.className = "gloss";
        gloss.textContent = a.gloss;
        button.append(gloss);
      }
      button.addEventListener("click", () => send({action: a.id}));
      return button;
    }));
  }

  function render(v) {
    shown = v;
    document.body.dataset.decision = v.decision;
    document.title = `${v.title}: game ${v.number} · bluffsim`;
    renderHistory(v.history);
    $("moves").hidden = !v.turn;
    $("play").hidden = v.over;
    $("end").hidden = !v.over;
    if (v.turn) {
      $("turn").textContent = `Your turn (seat ${v.seat})`;
      $("view").textContent = v.view;
      renderActions(v.actions);
      $("answer").value = "";
      setState("turn");
    } else if (v.over) {
      $("result").textContent = `Game over: ${v.result}`;
      $("final").textContent = lines(v.final);
      $("saved").textContent = v.saved;
      $("seed").textContent = `This game was dealt from seed ${v.seed}.`;
      setState("over");
    }
  }

  function busy(on) {
    for (const b of document.querySelectorAll("#moves button, #answer")) b.disabled = on;
    if (on) setState("busy");
  }

  async function load(claim) {
    const r = await call(claim ? "POST" : "GET", `/api/game/${gid}${claim ? "/claim" : ""}`);
    if (r.ok) { say(""); render(r.data); return; }
    say(r.data.error, r.status === 409);
    setState("error");
  }

  async function send(move) {
    if (!shown || !shown.turn || document.body.dataset.state === "busy") return;
    busy(true);
    const r = await call("POST", `/api/game/${gid}/move`, {decision: shown.decision, ...move});
    busy(false);
    if (r.ok) { say(""); render(r.data); return; }
    say(r.data.error, r.status === 409 && /another tab/.test(r.data.error));
    setState(r.status === 422 ? "turn" : "error");
  }

  $("typed").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("answer").value;
    if (text.trim()) send({answer: text});
  });
  $("claim").addEventListener("click", () => load(true));
  load(false);
})();
