"""Issue 23 in Chromium: a page served from another origin (another port of 127.0.0.1) tries
to drive the sandbox the ways a browser allows without asking (a text/plain fetch, a
text/plain form, a JSON fetch, a read of /api/world); none gets through. The sandbox's own
page keeps working in the same browser."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from tests.sandbox.support import Sandbox, running_sandbox, wait_until
from tests.sandbox.test_sandbox_browser import act, by_css, click, messages_text, open_view, wait

HOSTILE_PAGE = """<!doctype html><meta charset="utf-8"><title>cute kittens</title>
<iframe name="sink" style="display:none"></iframe>
<form id="form" method="POST" action="{sandbox}/api/people/{bob}/dm" enctype="text/plain"
      target="sink"><input name='{{"content":"hostile form","pad":"' value='"}}'></form>
<script>
const SB = "{sandbox}";
window.results = {{}};
async function attempt(name, run) {{
  try {{ window.results[name] = "went through: " + await run(); }}
  catch (e) {{ window.results[name] = "blocked: " + e; }}
}}
(async () => {{
  await attempt("text/plain fetch", async () => (await fetch(SB + "/api/people/{ann}/dm", {{
    method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
    body: JSON.stringify({{content: "hostile fetch"}})}})).type);
  await attempt("json fetch", async () => (await fetch(SB + "/api/people/{ann}/dm", {{
    method: "POST", headers: {{"Content-Type": "application/json"}},
    body: JSON.stringify({{content: "hostile json"}})}})).status);
  await attempt("read world", async () =>
    (await (await fetch(SB + "/api/world")).json()).people.length);
  document.getElementById("form").submit();
  await new Promise(done => setTimeout(done, 1500));
  window.done = true;
}})();
</script>"""


@contextmanager
def page_server(html: str) -> Iterator[str]:
    """Serve one page at http://127.0.0.1:<another port>/: another origin than the sandbox."""
    body = html.encode()

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def all_dm_texts(sb: Sandbox, *users: str) -> list[str]:
    return [
        str(m["content"])
        for user in users
        for m in sb.ok("GET", f"/api/people/{user}/dms")["messages"]
    ]


def test_a_page_on_another_origin_cannot_drive_the_sandbox(
    tmp_path: Path, sandbox_browser: Any
) -> None:
    web = sandbox_browser
    with running_sandbox(tmp_path) as sb:
        sb.wait_for_commands()
        who = sb.people()
        html = HOSTILE_PAGE.format(sandbox=sb.url, ann=who["ann"], bob=who["bob"])
        with page_server(html) as evil:
            assert evil.rsplit(":", 1)[1] != sb.url.rsplit(":", 1)[1]
            web.get(evil)
            wait(web, lambda: web.execute_script("return window.done === true"), timeout=30)
            results = dict(web.execute_script("return window.results"))
        assert "hostile" not in " ".join(all_dm_texts(sb, who["ann"], who["bob"])), results
        assert results["read world"].startswith("blocked"), results
        assert results["json fetch"].startswith("blocked"), results

        # The sandbox's own page, in the same browser, still acts.
        web.get(sb.url)
        wait(web, lambda: web.execute_script("return document.body.dataset.ready") == "1")
        open_view(web, f"#dm-list a[data-dm-user-id='{who['ann']}']")
        by_css(web, "#dm-input")[0].send_keys("hello from the sandbox page")
        act(web, lambda: click(web, "#dm-send"))
        wait(web, lambda: "hello from the sandbox page" in messages_text(web))
        wait_until(lambda: "hello from the sandbox page" in all_dm_texts(sb, who["ann"]), 10,
                   "Ann's DM through the page")
        assert "hostile" not in " ".join(all_dm_texts(sb, who["ann"], who["bob"]))
