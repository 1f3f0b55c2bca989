#!/bin/bash
# ch78's hand-off: finish the current-code real-text sweep started under the heavy lock, write
# results.json/curves.json, fill chapter 07's prose and claims from them, then release the lock.
cd /work/wt/ch78 || exit 1
export PYTHONPATH=/work/wt/ch78
D=notebooks/data/realtext
while [ $(wc -l < $D/progress.jsonl) -lt 15 ]; do sleep 20; done   # the last ALiBi seed
kill 19327 2>/dev/null; sleep 2; kill 19330 19331 2>/dev/null
while [ ! -s /tmp/ch78/side_t5_0.jsonl ] || [ ! -s /tmp/ch78/side_t5_1.jsonl ] || [ ! -s /tmp/ch78/side_t5_2.jsonl ]; do sleep 20; done
cat /tmp/ch78/side_t5_0.jsonl /tmp/ch78/side_t5_1.jsonl /tmp/ch78/side_t5_2.jsonl >> $D/progress.jsonl
.venv/bin/python -c "from posenc_lib import realtext; realtext.run_sweep('$D', workers=1, progress=False, variants=())"
echo "results written $(date +%T) load $(cat /proc/loadavg)" >> /tmp/ch78/sweep.log
cp notebooks/07_real_text.md /tmp/ch78/07_template.md
.venv/bin/python tools/issue27/fill07.py --write --claims > /tmp/ch78/fill.log 2>&1
echo "filled $(date +%T)" >> /tmp/ch78/sweep.log
kill -CONT 12811   # the stopped shell under ch78's flock: it exits and the heavy lock is released
