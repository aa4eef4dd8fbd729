"""Requests a twin never needs, refused inside the browser before they leave it: known tracker and ad hosts (their
names do not resolve), media that plays by itself (autoplay needs a gesture, which twins never make), and, when
nobody looks at the page (no screenshot for a report or the brain), web fonts.

Why browser switches and not Playwright's routing or a CDP block list: a route sends every request through the
driver and turns the HTTP cache off, and a block list needs the Network domain's events streamed to the client;
both cost more than the requests they save. A refused request fails as if the network refused it; the page's
markup and text, all a twin reads, stay the same. Third-party hosts other than trackers (a CDN serving the shop's
scripts or pictures) are left alone: a page may not work or look right without them.
"""

from __future__ import annotations

TRACKERS = (
    "google-analytics.com",
    "googletagmanager.com",
    "googleadservices.com",
    "doubleclick.net",
    "googlesyndication.com",
    "connect.facebook.net",
    "analytics.tiktok.com",
    "bat.bing.com",
    "clarity.ms",
    "hotjar.com",
    "segment.io",
    "cdn.segment.com",
    "mixpanel.com",
    "amplitude.com",
    "fullstory.com",
    "nr-data.net",
    "js-agent.newrelic.com",
    "criteo.com",
    "criteo.net",
    "taboola.com",
    "outbrain.com",
    "adnxs.com",
    "scorecardresearch.com",
    "quantserve.com",
    "js.hs-analytics.net",
    "ct.pinterest.com",
    "snap.licdn.com",
    "px.ads.linkedin.com",
    "static.ads-twitter.com",
    "sc-static.net",
)


def refusing_switches(pictures: bool) -> list[str]:
    """Chromium switches that refuse them; fonts only when no picture is taken."""
    rules = ", ".join(f"MAP {host} ~NOTFOUND, MAP *.{host} ~NOTFOUND" for host in TRACKERS)
    return [
        f"--host-resolver-rules={rules}",
        "--autoplay-policy=user-gesture-required",
        *(() if pictures else ("--disable-remote-fonts",)),
    ]
