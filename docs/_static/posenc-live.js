// Mounts the course's live explorers on a static page: every <div class="posenc-live"> holds the
// state its notebook cell left (kind, spec, values) in a JSON script; the same ES module that
// draws the widget in JupyterLab and Colab (posenc_lib/widgets/explorers.js, copied to
// _static/posenc/ by `make site`) draws it here from a local model: get/set/on/off/save_changes,
// no kernel and nothing from another host.
import explorers from "./posenc/explorers.js";

function localModel(state) {
  const listeners = new Map();
  return {
    get: (name) => state[name],
    set(name, value) {
      state[name] = value;
      for (const callback of listeners.get(`change:${name}`) ?? []) callback();
    },
    on(event, callback) {
      listeners.set(event, [...(listeners.get(event) ?? []), callback]);
    },
    off(event, callback) {
      listeners.set(event, (listeners.get(event) ?? []).filter((c) => c !== callback));
    },
    save_changes() {},
    send() {},
  };
}

for (const mount of document.querySelectorAll(".posenc-live")) {
  if (mount.dataset.mounted) continue;
  const state = JSON.parse(mount.querySelector("script[type='application/json']").textContent);
  const el = document.createElement("div");
  mount.querySelector(".posenc-live-fallback")?.remove();
  mount.append(el);
  mount.dataset.mounted = "true";
  explorers.render({ model: localModel(state), el });
}
