"""List decimal numbers in a notebook's markdown prose that no output of the notebook prints."""
import json, re, sys
nb = json.load(open(sys.argv[1]))
outputs = []
for c in nb["cells"]:
    if c["cell_type"] != "code":
        continue
    for o in c.get("outputs", []):
        if "text" in o:
            outputs.append("".join(o["text"]))
        for k, v in o.get("data", {}).items():
            if k.startswith("text/") and k != "text/html":
                outputs.append("".join(v))
text = "\n".join(outputs)
missing = []
for c in nb["cells"]:
    if c["cell_type"] != "markdown":
        continue
    src = "".join(c["source"])
    for m in re.finditer(r"(?<![\w.])[-+]?\d[\d,]*\.\d+", src):
        n = m.group(0).lstrip("+-")
        if n not in text:
            missing.append((n, src[max(0, m.start() - 40): m.end() + 10].replace("\n", " ")))
for n, ctx in missing:
    print(f"{n:>10}  ...{ctx}...")
print(f"{len(missing)} not printed")
