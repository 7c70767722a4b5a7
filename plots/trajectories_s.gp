# The trajectories in the transformed time s = Gamma(t) (paper 004, section 3): velocity jumps
# become continuous arcs and the runs converge uniformly.  Drawn by trajectories.gp.
in_s = 1
load 'trajectories.gp'
