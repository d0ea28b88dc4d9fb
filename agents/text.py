"""Text agents: players that read the game as text and answer in words, through ``bluffsim.text``.

``TextAgent`` is the base of every text agent (the ``llm`` HTTP agent included).  It is a normal
batched agent: at each ``act`` it renders every row's decision as chat messages (the protocol's
rules prompt, then the seat's view: ``TextProtocol.messages``), hands **all** rows to
``answer_stream`` (by default: ``answer_many`` once all are built), and reads each answer back
with the tolerant parser as it comes.  Rows whose answer
names no legal action are re-prompted together, with the reason (``TextProtocol.rethink``), one
round at a time, up to ``rethinks`` times; then ``on_failure`` decides:

* ``forfeit`` (default): the seat forfeits the game: ``(seed, seat)`` joins ``forfeited``; it
  plays a uniform legal action now and at every later decision of that game without asking
  again (the runner places a forfeited seat last);
* ``random``: a uniform legal action, flagged ``"random"`` in the decision's record.

The uniform action is the ``random`` agent's (the first word of the agent's stream for that
decision).  Every decision is kept as a ``Decision`` in ``decisions`` (what was sent, every
answer, the action and how it was reached), which the runner drains; an agent nobody drains
keeps the last ``KEEP`` decisions.  A decision of a seat that already forfeited has no messages
and no answers (outcome ``"forfeit"``).

Subclasses implement ``answer_many(conversations, keys)`` (or override ``answer_stream`` to send
each conversation while the next is built, as ``llm`` does): one ``(answer, meta)`` per
conversation, ``keys`` the (game seed, seat, decision index) of each; ``self.asking`` holds the
batch row of each conversation (a key can repeat within a batch: duplicate deals replay a seed).  Built here:

* ``text:package.module:function`` (agent spec; ``make_callable``): any Python callable.  It is
  given the chat messages (a list of ``{"role", "content"}`` dicts) when its first parameter is
  named ``messages`` or annotated as a list / sequence; otherwise one prompt string: the
  messages' contents joined by blank lines, each after the first headed by its role
  (``[user]``, ``[assistant]``).  It returns the answer text.
* ``text-counting``: the ``counting`` agent's decision written out as text and read back by the
  parser — one answer in three is the bare notation, one a sentence, one JSON — so it plays
  exactly ``counting``'s decisions (its parameters are counting's plus the text ones).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.base import REGISTRY, Agent, AgentParamError, Param, Traits, integer, nth_legal, register_agent
from bluffsim.rng import AgentRNG, Stream
from bluffsim.text import Parsed, TextProtocol, protocol_for

ON_FAILURE = ("forfeit", "random")
Key = tuple[int, int, int]
Messages = list[dict[str, str]]


@dataclass
class Decision:
    """One decision of a text agent, kept for records and transcripts."""

    seed: int
    seat: int
    decision: int
    messages: Messages            # everything sent, rethink turns included
    answers: list[str]            # every answer received
    action: int                   # the action played
    action_text: str
    outcome: str                  # "ok" | "rethought" | "random" | "forfeit"
    rethinks: int
    meta: list[dict] = field(default_factory=list)   # per answer: what answer_many returned
    parsed: list[Parsed] = field(default_factory=list)  # per answer: how the parser read it


TEXT_PARAMS: dict[str, Any] = {"list_legal": True, "rethinks": 2, "on_failure": "forfeit",
                               "system_prompt": ""}
TEXT_SPEC: dict[str, Param] = {
    "list_legal": Param(bool, doc="list the legal actions in every prompt"),
    "rethinks": integer(0, 20, doc="re-prompts (with the reason) after an unplayable answer"),
    "on_failure": Param(str, doc="after the last rethink: forfeit (the seat is placed last) or "
                                 "random (a uniform legal action)"),
    "system_prompt": Param(str, doc="text added after the rules in the system message"),
}


class _Row:
    """The conversation of one row of the batch while ``act`` runs."""

    def __init__(self, index: int, key: Key):
        self.index, self.key = index, key
        self.obs: dict[str, np.ndarray] = {}
        self.messages: Messages = []
        self.answers: list[str] = []
        self.meta: list[dict] = []
        self.parsed: Parsed | None = None
        self.reads: list[Parsed] = []


class TextAgent(Agent):
    """Base of every text agent (module docstring): subclasses implement ``answer_many``."""

    name = "text"
    traits = Traits(stochastic=True, uses_history=True)
    params = dict(TEXT_PARAMS)
    spec = dict(TEXT_SPEC)
    KEEP = 10_000   # decisions kept when nobody drains ``decisions``

    def __init__(self, game: Any, **params: Any):
        super().__init__(game, **params)
        if self.config["on_failure"] not in ON_FAILURE:
            raise AgentParamError(f"agent {self.name!r} ({game.game_id}): parameter on_failure = "
                                  f"{self.config['on_failure']!r} is invalid; allowed: "
                                  f"{' | '.join(ON_FAILURE)}")
        self.protocol: TextProtocol = protocol_for(game, self.config["list_legal"])
        self.decisions: list[Decision] = []
        self.forfeited: set[tuple[int, int]] = set()
        self.asking: list[int] = []   # batch row of each conversation of the answer_many call

    def answer_many(self, conversations: list[Messages], keys: list[Key]) -> list[tuple[str, dict]]:
        """One (answer text, meta dict) per conversation; ``keys`` are (game seed, seat, decision)."""
        raise NotImplementedError

    def answer_stream(self, items: Iterable[tuple[Messages, Key]],
                      n: int) -> Iterator[tuple[int, tuple[str, dict]]]:
        """``(position, (answer, meta))`` for each of the ``n`` (conversation, key) items, in any
        order.  This default builds every conversation, then asks ``answer_many`` once; an agent
        that can send each one as it is built (``llm``) overrides it."""
        conversations, keys = [], []
        for messages, key in items:
            conversations.append(messages)
            keys.append(key)
        replies = self.answer_many(conversations, keys)
        if len(replies) != n:
            raise RuntimeError(f"agent {self.name!r}: answer_many returned {len(replies)} "
                               f"answers for {n} conversations")
        yield from enumerate(replies)

    # ------------------------------------------------------------------ one batch of decisions
    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """One legal action per row: every row asked at once, failures re-prompted together."""
        legal = np.asarray(legal_mask, dtype=bool)
        uniform = nth_legal(legal, rng.below(legal.sum(axis=1)))
        keys = batch_keys(rng)
        out = uniform.astype(np.int64)
        kept: list[Decision | None] = [None] * legal.shape[0]
        rows = []
        for b in range(legal.shape[0]):
            if keys[b][:2] in self.forfeited:
                kept[b] = Decision(*keys[b], [], [], int(out[b]), self.protocol.action_text(out[b]),
                                   "forfeit", 0)
            else:
                rows.append(_Row(b, keys[b]))
        self._converse(rows, obs, legal)
        for row in rows:
            kept[row.index] = self._close(row, out)
        self.decisions.extend(kept)
        if len(self.decisions) > self.KEEP:
            del self.decisions[:len(self.decisions) - self.KEEP]
        return out

    def _converse(self, rows: list[_Row], obs: dict[str, np.ndarray], legal: np.ndarray) -> None:
        """Ask every row, then re-ask the failed ones together, up to ``rethinks`` rounds; each
        answer is read as it comes."""
        pending = rows
        for attempt in range(self.config["rethinks"] + 1):
            if not pending:
                return
            self.asking = [r.index for r in pending]
            items = (self._prompt(row, attempt, obs, legal) for row in pending)
            for pos, (answer, meta) in self.answer_stream(items, len(pending)):
                row = pending[pos]
                answer = answer if isinstance(answer, str) else ""
                row.answers.append(answer)
                row.meta.append(dict(meta or {}))
                row.parsed = self.protocol.parse(answer, legal[row.index], row.obs)
                row.reads.append(row.parsed)
            pending = [r for r in pending if not r.parsed.ok]

    def _prompt(self, row: _Row, attempt: int, obs: dict[str, np.ndarray],
                legal: np.ndarray) -> tuple[Messages, Key]:
        """Row's messages for ``attempt`` (built when first asked; a rethink appends the last
        answer and the reason) and its key."""
        if attempt == 0:
            row.obs = row_of(obs, row.index)
            row.messages = self.protocol.messages(row.obs, legal[row.index],
                                                  self.config["system_prompt"] or None)
        else:
            row.messages.append({"role": "assistant", "content": row.answers[-1]})
            row.messages.append(self.protocol.rethink(row.parsed))
        return list(row.messages), row.key

    def _close(self, row: _Row, out: np.ndarray) -> Decision:
        """Write row's action (or the failure rule's) into ``out``; its ``Decision``."""
        parsed = row.parsed
        if parsed is not None and parsed.ok:
            out[row.index] = parsed.action
            outcome = "ok" if len(row.answers) == 1 else "rethought"
        else:
            outcome = self.config["on_failure"]
            if outcome == "forfeit":
                self.forfeited.add(row.key[:2])
        a = int(out[row.index])
        return Decision(*row.key, row.messages, row.answers, a, self.protocol.action_text(a),
                        outcome, len(row.answers) - 1, row.meta, row.reads)


def batch_keys(rng: AgentRNG) -> list[Key]:
    """(game seed, seat, decision index) of every row of the batch."""
    seats = (rng.streams - Stream.AGENT).tolist()
    return [(int(s), int(p), int(d)) for s, p, d in
            zip(rng.seeds.tolist(), seats, rng.decisions.tolist(), strict=True)]


def row_of(obs: dict[str, np.ndarray], b: int) -> dict[str, np.ndarray]:
    """Row ``b`` of a batched observation (no batch axis)."""
    return {k: v[b] for k, v in obs.items()}


# ---------------------------------------------------------------------- text:package.module:function
def takes_messages(fn: Callable[..., Any]) -> bool:
    """Whether ``fn`` wants the chat messages (first parameter named ``messages`` or annotated as a
    list / sequence) rather than one prompt string."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if not params:
        return False
    first = params[0]
    if first.name == "messages":
        return True
    ann = first.annotation
    if ann is inspect.Parameter.empty:
        return False
    text = ann if isinstance(ann, str) else getattr(ann, "__name__", "") + repr(ann)
    return any(w in text.lower() for w in ("list", "sequence"))


def prompt_text(messages: Sequence[dict[str, str]]) -> str:
    """The messages as one prompt string: contents joined by blank lines, each after the first
    headed by its role (``[user]``, ``[assistant]``)."""
    parts = [messages[0]["content"]] if messages else []
    parts += [f"[{m['role']}]\n{m['content']}" for m in messages[1:]]
    return "\n\n".join(parts)


class CallableTextAgent(TextAgent):
    """A Python callable as a text agent (``text:package.module:function``)."""

    name = "text"

    def __init__(self, game: Any, fn: Callable[..., Any] | None = None, label: str = "text",
                 **params: Any):
        super().__init__(game, **params)
        if fn is None:
            raise AgentParamError("a callable text agent needs its function (agent "
                                  "\"text:package.module:function\")")
        self.fn, self.label, self.wants_messages = fn, label, takes_messages(fn)
        self.name = label

    def answer_many(self, conversations: list[Messages], keys: list[Key]) -> list[tuple[str, dict]]:
        """The callable's answer to each conversation, in turn."""
        out = []
        for conv in conversations:
            answer = self.fn(conv if self.wants_messages else prompt_text(conv))
            if not isinstance(answer, str):
                raise TypeError(f"{self.label}: the function must return a str, got "
                                f"{type(answer).__name__}")
            out.append((answer, {}))
        return out


def make_callable(spec: str, game: Any, **params: Any) -> CallableTextAgent:
    """The agent of a ``text:package.module:function`` spec, checked against the agent contract."""
    from agents import custom

    fn = custom.import_object(spec[len(custom.TEXT_PREFIX):], "function", spec)
    if not callable(fn):
        raise custom.AgentContractError(f"agent {spec!r}: {spec[len(custom.TEXT_PREFIX):]!r} is "
                                        "not callable")
    agent = custom.check_agent(spec, CallableTextAgent, game, {"fn": fn, "label": spec, **params})
    agent.decisions.clear()     # the contract check's probe decisions are not the run's
    agent.forfeited.clear()
    return agent


# ---------------------------------------------------------------------- text-counting
class TextCounting(TextAgent):
    """``counting``'s decisions through the text protocol: written out, read back by the parser."""

    name = "text-counting"
    counting: type = Agent        # the game's counting class (set per game)
    STYLES = ("{text}", "Counting the cards I can see, I choose: {text}.", '{{"action": "{text}"}}')

    def __init__(self, game: Any, **params: Any):
        unknown = set(params) - set(self.params)
        if unknown:
            raise AgentParamError(f"agent {self.name!r} ({game.game_id}): unknown parameter(s) "
                                  f"{', '.join(sorted(unknown))}; allowed: {', '.join(self.params)}")
        super().__init__(game, **{k: v for k, v in params.items() if k in TEXT_PARAMS})
        self.inner = self.counting(game, **{k: v for k, v in params.items() if k not in TEXT_PARAMS})
        self.config.update(self.inner.config)
        self._choice = np.zeros(0, np.int64)

    def act(self, obs: dict[str, np.ndarray], legal_mask: np.ndarray, rng: AgentRNG) -> np.ndarray:
        """counting's choice per row, then played through the text conversation."""
        self._choice = np.asarray(self.inner.act(obs, legal_mask, rng), dtype=np.int64)
        return super().act(obs, legal_mask, rng)

    def answer_many(self, conversations: list[Messages], keys: list[Key]) -> list[tuple[str, dict]]:
        """counting's action written in the notation, in one of three styles by decision index."""
        out = []
        for row, key in zip(self.asking, keys, strict=True):
            text = self.protocol.action_text(self._choice[row])
            out.append((self.STYLES[key[2] % len(self.STYLES)].format(text=text), {}))
        return out


def register_text_counting() -> None:
    """Register ``text-counting`` for every game ``counting`` plays (called once the agents
    package has imported every agent module)."""
    for gid, counting in sorted(REGISTRY.get("counting", {}).items()):
        if gid in REGISTRY.get(TextCounting.name, {}):
            continue
        cls = type(f"TextCounting_{gid}", (TextCounting,), {
            "counting": counting,
            "traits": Traits(stochastic=counting.traits.stochastic, uses_history=True),
            "params": {**TEXT_PARAMS, **counting.params},
            "spec": {**TEXT_SPEC, **counting.spec},
            "__doc__": f"``counting`` of ``{gid}`` through the text protocol."})
        register_agent(gid)(cls)
