// Runs posenc_lib/widgets/explorers.js under Node.js, for tests/test_explorers_node.py.
//
// The page's module is imported as the browser imports it (its named exports: the math, the
// colour mapping, `frame` and `painted`); nothing of render() runs, so no DOM is needed. Reads a
// JSON list of requests on stdin and writes a JSON list of results on stdout, one per request:
//
//   {"call": "alibiSlopes", "args": [12]}          -> the exported function's return value
//   {"frame": [kind, spec, values]}                  -> frame(kind, spec, values), with
//                                                       "painted": painted(kind, spec, values, strips)
//                                                       and "binary": the spec's keys that arrived as bytes
//
// Numbers that JSON cannot carry (NaN) travel as {"float64_base64": "..."}, little-endian float64
// bytes: in a call's arguments they become a Float64Array; in a frame's spec a DataView three bytes
// into its buffer (unaligned for float64s), as the widget receives the kernel's bytes. In the
// results, typed arrays become lists and NaN becomes null.

import { readFileSync } from "node:fs";

const module = await import(new URL("../../posenc_lib/widgets/explorers.js", import.meta.url));

const bytesOf = (text) => Buffer.from(text, "base64");

function float64Array(text) {
  const bytes = bytesOf(text), out = new Float64Array(bytes.length / 8);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

function dataView(text) {
  const bytes = bytesOf(text), buffer = new ArrayBuffer(bytes.length + 3);
  new Uint8Array(buffer, 3).set(bytes);
  return new DataView(buffer, 3, bytes.length);
}

const isBytes = (x) => x !== null && typeof x === "object" && typeof x.float64_base64 === "string";

function argument(x) {
  if (isBytes(x)) return float64Array(x.float64_base64);
  if (Array.isArray(x)) return x.map(argument);
  return x;
}

function answer(request) {
  if (request.call !== undefined) {
    const fn = module[request.call];
    if (typeof fn !== "function") throw new Error(`explorers.js exports no function ${request.call}`);
    return fn(...request.args.map(argument));
  }
  const [kind, sent, values] = request.frame;
  const strips = request.strips ?? 256;
  const spec = Object.fromEntries(
    Object.entries(sent).map(([k, v]) => [k, isBytes(v) ? dataView(v.float64_base64) : v]),
  );
  const binary = Object.keys(spec).filter((k) => spec[k] instanceof DataView);
  return { ...module.frame(kind, spec, values), painted: module.painted(kind, spec, values, strips), binary };
}

const plain = (key, value) => (ArrayBuffer.isView(value) && !(value instanceof DataView) ? Array.from(value) : value);

const requests = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(requests.map(answer), plain));
