// The live mirror, opt-in ("Live"): the hub encodes the selected device's screen once
// (H.264) for every viewer and sends it on its own websocket, /v1/mirror; the page decodes it
// with WebCodecs onto a canvas in the picture's box, under the element outlines, so picking
// and hovering work on the live screen as on the picture. Off again: the socket closes and
// the settled picture shows. The canvas counts decoded frames in data-frames.
(() => {
const live = { ws: null, decoder: null, frames: 0 };
const button = document.getElementById("live"), canvas = document.getElementById("live-canvas");
const HEADER = 9;  // flags (bit 0: key frame), then the time in µs (u64, big-endian)

function stop(why) {
  const ws = live.ws;
  live.ws = null;
  if (ws) ws.close();
  if (live.decoder && live.decoder.state !== "closed") live.decoder.close();
  live.decoder = null;
  canvas.hidden = true;
  button.classList.remove("on");
  button.textContent = "Live";
  if (why) button.title = why;
}

function configure(config) {
  if (live.decoder && live.decoder.state !== "closed") live.decoder.close();
  canvas.width = config.width; canvas.height = config.height;
  canvas.dataset.codec = config.codec; canvas.dataset.source = config.source;
  const ctx = canvas.getContext("2d");
  live.decoder = new VideoDecoder({
    output: (frame) => {
      ctx.drawImage(frame, 0, 0, canvas.width, canvas.height);
      frame.close();
      live.frames += 1;
      canvas.dataset.frames = String(live.frames);
      canvas.hidden = false;
    },
    error: (err) => stop("the live screen could not be decoded: " + err.message),
  });
  live.decoder.configure({ codec: config.codec, optimizeForLatency: true });
}

function start() {
  const device = state.selected;
  if (!device || !state.token) return;
  if (typeof VideoDecoder === "undefined") { button.title = "this browser has no WebCodecs (it needs https or localhost)"; return; }
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(scheme + location.host + "/v1/mirror?device=" + encodeURIComponent(device) + "&fps=30");
  ws.binaryType = "arraybuffer";
  live.ws = ws; live.frames = 0; canvas.dataset.frames = "0";
  ws.onopen = () => ws.send(JSON.stringify({ token: state.token }));
  ws.onmessage = (e) => {
    if (typeof e.data === "string") {
      const msg = JSON.parse(e.data);
      if (msg.type === "mirror.config") configure(msg);
      else if (msg.type === "mirror.closed") stop(msg.reason);
      return;
    }
    if (!live.decoder || live.decoder.state !== "configured" || e.data.byteLength <= HEADER) return;
    const head = new DataView(e.data);
    live.decoder.decode(new EncodedVideoChunk({
      type: head.getUint8(0) & 1 ? "key" : "delta",
      timestamp: Number(head.getBigUint64(1)),
      data: new Uint8Array(e.data, HEADER),
    }));
  };
  ws.onclose = (e) => { if (live.ws === ws) stop(e.reason || "the live screen closed"); };
  button.classList.add("on");
  button.textContent = "Live ●";
}

button.addEventListener("click", () => (live.ws ? stop() : start()));
document.addEventListener("mobridge:device", () => { if (live.ws) { stop(); start(); } });
})();
