"""Make docs/screenshot.png: the browser game in play (`python docs/screenshot.py`).

Starts the `skipbo serve` app on a free local port, opens it in headless Chromium (Debian's
/usr/bin/chromium, driven by Playwright), plays a few moves of a seeded standard game against
`expert` and photographs the table with a card selected and its legal targets highlighted.
"""

import os
import socket
import sys
import threading
import time

import uvicorn
from playwright.sync_api import sync_playwright

from skipbo_env.apps.web.server import create_app

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "screenshot.png")


def main() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=port,
                                           log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.05)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--headless", "--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 760})
        page.add_init_script("window.SKIPBO_FAST = true;")
        page.goto(f"http://127.0.0.1:{port}/?seed=11")
        page.wait_for_function("() => window.skipboIdle && window.skipboIdle()")
        for _ in range(6):  # a few turns: the hint's move each time
            page.click("#hint")
            page.wait_for_function("() => document.querySelector('.selected') !== null")
            page.locator(".legal-target").first.click()
            page.wait_for_function("() => window.skipboIdle && window.skipboIdle()")
        page.locator("#hand .source").first.click()
        page.screenshot(path=OUT)
        browser.close()
    server.should_exit = True
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
