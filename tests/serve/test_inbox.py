"""`oncely serve` in a real browser (Playwright driving Debian's headless Chromium).

An agent (the Python package) runs refunds whose calls time out with no way to reconcile: the
entries are escalated. A person signs in, finds them in the inbox, settles one ("it happened",
with the provider's result); the agent's next call gets that result and the tool is not called
again. Pages are refused without credentials; a form posted from another site changes nothing;
metrics are read with the Prometheus client's parser; the webhook receiver gets signed notices,
one of them only on a retry after it answered 500. Refunds whose policy asks a person first:
one approved, one denied in the browser (another site's form refused); the agent resumes and
pays once, the denied one never; a notice per request and per decision.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import oncely
import pytest
from playwright.sync_api import Browser, Page, sync_playwright
from prometheus_client.parser import text_string_to_metric_families

TOKEN = "inbox-test-token-0123456789"
SECRET = "webhook-secret-0123456789"
MANUAL = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": "manual",
    "escalateAfterMs": 0,
}
SCREENSHOTS = Path(os.environ.get("ONCELY_SCREENSHOTS", "screenshots"))


@dataclass
class Receiver:
    """A webhook receiver that answers 500 to the first request, then 200."""

    got: list[tuple[int, dict[str, str], bytes]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def serve(self) -> ThreadingHTTPServer:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["content-length"]))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver.lock:
                    status = 500 if not receiver.got else 200
                    receiver.got.append((status, headers, body))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server


class CrossSite(BaseHTTPRequestHandler):
    """Another site: a page whose form posts a settlement to the inbox by itself."""

    target = ""
    action = "/settle"
    fields: dict[str, str] = {}  # noqa: RUF012 (set once per test)

    def do_GET(self) -> None:
        inputs = "".join(
            f'<input type="hidden" name="{k}" value="{v}">' for k, v in self.fields.items()
        )
        page = (
            f'<form id="f" method="post" action="{self.target}{self.action}">{inputs}</form>'
            "<script>document.getElementById('f').submit()</script>"
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args: Any) -> None:
        pass


def refund(ledger: oncely.Ledger, scope: str, charge: str, tool_fn: Any) -> Any:
    return ledger.run(
        tool_fn,
        scope=scope,
        run="conversation-7",
        step="refund",
        tool="refund",
        args={"charge_id": charge, "amount": 500, "currency": "eur"},
        policy=MANUAL,
    )


def times_out(key: str) -> Any:
    raise TimeoutError("the payment provider did not answer in 10 s")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[dict[str, Any]]:
    db = str(tmp_path / "ledger.db")
    agent = oncely.Ledger.sqlite(db, owner="agent-7")
    for scope, charge in [("acme", "ch_3PqL9"), ("globex", "ch_8ZtK2")]:
        with pytest.raises(oncely.EscalatedError):
            refund(agent, scope, charge, times_out)
    receiver = Receiver()
    hook_server = receiver.serve()
    secret = tmp_path / "webhook-secret"
    secret.write_text(SECRET)
    env = {**os.environ, "ONCELY_SERVE_TOKEN": TOKEN, "ONCELY_LOG": "warn"}
    env.pop("ONCELY_DB", None)
    args = [os.environ["ONCELY_BIN"], "serve", "--db", db, "--listen", "127.0.0.1:0"]
    args += ["--sweep-every", "100ms", "--webhook-retry", "50ms"]
    args += ["--webhook", f"http://127.0.0.1:{hook_server.server_port}/hook"]
    args += ["--webhook-secret-file", str(secret), "--public-url", "https://ops.example"]
    proc = subprocess.Popen(args, env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    base = ""
    for line in proc.stderr:
        if line.startswith("oncely serve: listening on "):
            base = line.split(" on ", 1)[1].strip().rstrip("/")
            break
    assert base, "oncely serve did not start"
    threading.Thread(target=lambda: [None for _ in proc.stderr or []], daemon=True).start()
    try:
        yield {"db": db, "agent": agent, "base": base, "receiver": receiver}
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        hook_server.shutdown()
        agent.close()


@pytest.fixture
def browser() -> Iterator[Browser]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=os.environ["ONCELY_CHROMIUM"], args=["--no-sandbox"])
        yield b
        b.close()


def sign_in(page: Page, base: str) -> None:
    page.goto(base + "/")
    assert page.url == base + "/login?next=%2F", "the inbox let an anonymous browser in"
    page.fill("input[name=token]", TOKEN)
    page.fill("input[name=name]", "Dana (ops)")
    page.click("button[type=submit]")
    page.wait_for_url(base + "/")


def metrics(page: Page, base: str) -> dict[str, float]:
    r = page.request.get(base + "/metrics", headers={"authorization": f"Bearer {TOKEN}"})
    assert r.status == 200
    out = {}
    for family in text_string_to_metric_families(r.text()):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return out


def test_a_person_settles_an_escalated_refund_and_the_agent_replays_it(
    world: dict[str, Any], browser: Browser
) -> None:
    base, agent = world["base"], world["agent"]
    # Without credentials: the pages send you to sign in, metrics answer 401.
    anonymous = browser.new_context()
    r = anonymous.request.get(base + "/", max_redirects=0)
    assert (r.status, r.headers["location"]) == (303, "/login?next=%2F")
    assert anonymous.request.get(base + "/metrics").status == 401
    anonymous.close()

    context = browser.new_context(viewport={"width": 1100, "height": 760})
    page = context.new_page()
    sign_in(page, base)
    assert page.inner_text("h1") == "Needs a person (2)"
    assert page.locator("article.card").count() == 2
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "inbox.png"), full_page=True)

    # The same inbox on a phone: one column, nothing wider than the screen.
    phone = browser.new_context(
        viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
    )
    phone_page = phone.new_page()
    sign_in(phone_page, base)
    width = phone_page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the inbox is {width}px wide on a 390px phone"
    phone_page.screenshot(path=str(SCREENSHOTS / "inbox-phone.png"))
    phone.close()

    # Settle acme's refund: it happened (the person found it in the provider's dashboard).
    acme = next(e for e in agent.list("acme") if e.tool == "refund")
    page.click(f"a[href*='scope=acme'][href*='{acme.key.split(':')[1][:16]}'] >> nth=0")
    assert "the payment provider did not answer" in page.inner_text("main")
    assert page.locator("table tbody tr").count() >= 2, "the entry's history"
    page.fill("textarea[name=result]", '{"refund_id": "re_1Nv", "status": "succeeded"}')
    page.locator("form.settle").first.locator("input[name=note]").fill("in the dashboard")
    page.get_by_role("button", name="It happened", exact=True).click()
    flash = page.inner_text("p.flash")
    settled = re.search(r"settlement (stl-[0-9a-f]{16})", flash)
    assert settled, flash
    entry = agent.get("acme", acme.key)
    assert entry is not None
    assert (entry.state.value, entry.settlement, entry.resolved_by) == (
        "done",
        settled.group(1),
        "Dana (ops)",
    )

    # The agent's next call: the person's verdict, and the tool is not called again.
    def never(key: str) -> Any:
        raise AssertionError("the refund ran again")

    again = refund(agent, "acme", "ch_3PqL9", never)
    assert again.replayed
    assert again.value == {"refund_id": "re_1Nv", "status": "succeeded"}

    # Another page posts a settlement of globex's entry by itself — even with the session's own
    # CSRF token, as if it had leaked. From another origin of the same site (127.0.0.1, another
    # port: the browser sends the session cookie) the server refuses it by its Origin; from
    # another site (localhost) the cookie is not even sent. The entry is as it was.
    globex = next(e for e in agent.list("globex") if e.tool == "refund")
    page.goto(base + "/")
    page.click("a[href*='scope=globex'] >> nth=0")
    csrf = page.get_attribute("input[name=csrf] >> nth=0", "value") or ""
    CrossSite.target = base
    CrossSite.fields = {
        "csrf": csrf,
        "scope": "globex",
        "key": globex.key,
        "version": str(globex.version),
        "verdict": "not-happened",
    }
    evil = ThreadingHTTPServer(("127.0.0.1", 0), CrossSite)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        for host, refused in [("127.0.0.1", (403,)), ("localhost", (401, 403))]:
            with page.expect_navigation(url=base + "/settle") as nav:
                page.goto(f"http://{host}:{evil.server_port}/")
            response = nav.value
            assert response is not None
            assert response.status in refused, (host, response.status)
    finally:
        evil.shutdown()
    assert agent.get("globex", globex.key) == globex

    # Metrics, parsed by the Prometheus client.
    m = metrics(page, base)
    assert m["oncely_entries{state=done}"] == 1
    assert m["oncely_entries{state=escalated}"] == 1
    assert m["oncely_needs_person"] == 1
    assert m["oncely_outcomes_total{kind=resolved}"] == 1
    assert m["oncely_oldest_in_doubt_seconds"] >= 0

    # Webhook notices: one per escalated entry, signed; the first refused once and sent again.
    receiver: Receiver = world["receiver"]
    for _ in range(200):
        with receiver.lock:
            if sum(1 for s, _, _ in receiver.got if s == 200) >= 2:
                break
        page.wait_for_timeout(50)
    with receiver.lock:
        got = list(receiver.got)
    assert got[0][0] == 500
    delivered = {json.loads(body)["id"]: (headers, body) for s, headers, body in got if s == 200}
    assert len(delivered) == 2
    assert json.loads(got[0][2])["id"] in delivered, "the refused notice was sent again"
    for headers, body in delivered.values():
        notice = json.loads(body)
        assert notice["type"] == "entry.escalated"
        assert notice["entry"]["url"].startswith("https://ops.example/entry?scope=")
        t, v1 = headers["oncely-signature"].removeprefix("t=").split(",v1=")
        want = hmac.new(SECRET.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()
        assert hmac.compare_digest(v1, want)
    context.close()


APPROVAL = {
    "class": "irreversible-external",
    "key": {},
    "reconcile": "provider-idempotent",
    "approval": {"when": {"/amount": {">": 100}}},
}


def refund_asked(ledger: oncely.Ledger, charge: str, amount: int, paid: list[str]) -> Any:
    def pay(key: str) -> Any:
        paid.append(charge)
        return {"refund_id": f"re_{charge}", "amount": amount}

    return ledger.run(
        pay,
        scope="acme",
        run="conversation-9",
        step=f"refund-{charge}",
        tool="refund",
        args={"charge_id": charge, "amount": amount, "currency": "eur"},
        policy=APPROVAL,
    )


def test_a_person_approves_one_refund_and_denies_another(
    world: dict[str, Any], browser: Browser
) -> None:
    base, agent = world["base"], world["agent"]
    paid: list[str] = []
    # Two refunds over 100: the policy asks a person first; neither runs, and asking again
    # (a retry, a resumed run) is the same request.
    asked = {}
    for charge, amount in [("ch_small", 40), ("ch_A1", 500), ("ch_B2", 700)]:
        try:
            refund_asked(agent, charge, amount, paid)
        except oncely.AwaitingApprovalError as e:
            asked[charge] = e
    assert set(asked) == {"ch_A1", "ch_B2"} and paid == ["ch_small"]
    with pytest.raises(oncely.AwaitingApprovalError) as again:
        refund_asked(agent, "ch_A1", 500, paid)
    assert (again.value.key, again.value.version) == (asked["ch_A1"].key, asked["ch_A1"].version)

    context = browser.new_context(viewport={"width": 1100, "height": 900})
    page = context.new_page()
    sign_in(page, base)
    assert page.inner_text("h2#approvals") == "Awaiting approval (2)"
    assert page.locator("article.approval").count() == 2
    assert '"amount": 700' in page.inner_text("article.approval >> nth=1")

    # Approve the refund of 500 (the person read its exact arguments).
    page.click(f"a[href*='{asked['ch_A1'].key.split(':')[1][:16]}'] >> nth=0")
    assert "Approve or deny" in page.inner_text("main")
    assert "No earlier call of this tool in this scope was approved" in page.inner_text("main")
    page.locator("form.decide").first.locator("input[name=note]").fill("customer verified")
    page.get_by_role("button", name="Approve", exact=True).click()
    flash = page.inner_text("p.flash")
    approved = re.search(r"Recorded: approved, decision (stl-[0-9a-f]{16})", flash)
    assert approved, flash

    # The refund of 700: shown against the approved one, member by member; denied.
    page.goto(base + "/")
    page.click(f"a[href*='{asked['ch_B2'].key.split(':')[1][:16]}'] >> nth=0")
    diff = page.inner_text("table.diff")
    assert "/amount" in diff and "500" in diff and "700" in diff and "/charge_id" in diff, diff
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / "approval.png"), full_page=True)

    # Another site's page cannot approve it, even with the session's CSRF token: the form it
    # posts by itself is refused by its Origin, and the request still awaits a person.
    b2 = agent.get("acme", asked["ch_B2"].key)
    CrossSite.target, CrossSite.action = base, "/decide"
    CrossSite.fields = {
        "csrf": page.get_attribute("input[name=csrf] >> nth=0", "value") or "",
        "scope": "acme",
        "key": asked["ch_B2"].key,
        "version": str(asked["ch_B2"].version),
        "decision": "approve",
    }
    evil = ThreadingHTTPServer(("127.0.0.1", 0), CrossSite)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        with page.expect_navigation(url=base + "/decide") as nav:
            page.goto(f"http://127.0.0.1:{evil.server_port}/")
        assert nav.value is not None and nav.value.status == 403
    finally:
        evil.shutdown()
        CrossSite.action = "/settle"
    assert agent.get("acme", asked["ch_B2"].key) == b2
    page.goto(base + "/")
    page.click(f"a[href*='{asked['ch_B2'].key.split(':')[1][:16]}'] >> nth=0")
    page.locator("form.decide").nth(1).locator("input[name=note]").fill("over the monthly limit")
    page.get_by_role("button", name="Deny", exact=True).click()
    denied = re.search(r"Recorded: denied, decision (stl-[0-9a-f]{16})", page.inner_text("p.flash"))
    assert denied, page.inner_text("p.flash")

    # The agent resumes: the approved refund runs once, the denied one never.
    first = refund_asked(agent, "ch_A1", 500, paid)
    assert not first.replayed and first.value == {"refund_id": "re_ch_A1", "amount": 500}
    assert refund_asked(agent, "ch_A1", 500, paid).replayed
    with pytest.raises(oncely.DeniedError) as no:
        refund_asked(agent, "ch_B2", 700, paid)
    assert (no.value.by, no.value.settlement) == ("Dana (ops)", denied.group(1))
    assert "over the monthly limit" in no.value.reason
    assert paid == ["ch_small", "ch_A1"]

    m = metrics(page, base)
    assert m["oncely_entries{state=denied}"] == 1
    assert m["oncely_outcomes_total{kind=approved}"] == 1

    # Webhook notices: one per request, one per decision (under the decision's id).
    receiver: Receiver = world["receiver"]
    wanted = {"entry.awaiting-approval", "entry.approved", "entry.denied"}

    def notices() -> list[dict[str, Any]]:
        with receiver.lock:
            bodies = [json.loads(body) for s, _, body in receiver.got if s == 200]
        return [n for n in bodies if n["type"] in wanted]

    for _ in range(200):
        if len(notices()) >= 4:
            break
        page.wait_for_timeout(50)
    got = sorted((n["type"], n["entry"]["key"], n["id"]) for n in notices())
    keys = sorted([asked["ch_A1"].key, asked["ch_B2"].key])
    assert [g[1] for g in got if g[0] == "entry.awaiting-approval"] == keys, got
    assert ("entry.approved", asked["ch_A1"].key, approved.group(1)) in got, got
    assert ("entry.denied", asked["ch_B2"].key, denied.group(1)) in got, got
    context.close()
