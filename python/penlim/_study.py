"""Sweeps, comparisons, studies and directories read back (filled in below)."""
class Sweep: pass
class Comparison: pass
class Study: pass
def sweep(*a, **k): raise NotImplementedError
def compare(*a, **k): raise NotImplementedError
def study(*a, **k): raise NotImplementedError
def load(*a, **k): raise NotImplementedError
