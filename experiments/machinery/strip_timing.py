# A metrics file (JSON lines) without its timing fields, keys sorted: two runs of one
# configuration print the same lines whatever the machine did meanwhile. Further arguments:
# more keys to drop.
import json, sys
drop = {"seconds", "games_per_second", "cpu_seconds", "wall_seconds", "tasks_per_second"} | set(sys.argv[2:])
def clean(x):
    if isinstance(x, dict):
        return {k: clean(v) for k, v in x.items() if k not in drop}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x
for line in open(sys.argv[1]):
    print(json.dumps(clean(json.loads(line)), sort_keys=True))
