import sys; sys.path.insert(0,'bench'); sys.path.insert(0,'bench')
import short_noise_sketch as tune, dips_envelope as de
from iolab.doctor.rules import telemetry
orig = de.draw
def draw(seed, scenario="single"):
    c = orig(seed, scenario); telemetry.EXP_PHI = f"fix{c.phi}"; return c
tune.de.draw = draw
found, false, rows = tune.short(3_800_000, 1200)
print("oracle phi", sum(f for f, n in found.values()), sorted(found.items()), "false", false)
