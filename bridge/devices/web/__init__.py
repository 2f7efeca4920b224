"""Web content on devices: the Chrome DevTools Protocol client, the headless Chromium the
simulated device's WebView runs in, and the paths to a phone's page debugging endpoints
(Android's devtools sockets through adb forward; iOS's Web Inspector through pymobiledevice3).

Layout: ``cdp`` (a thin typed client on websockets + msgspec), ``chromium`` (starts Debian's
browser with a private profile and no network), ``source`` (what a device offers: pages to
attach to), ``android`` and ``ios`` (the phone paths). Nothing here imports the hub.
"""
