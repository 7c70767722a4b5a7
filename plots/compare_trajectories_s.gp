# The compared solutions in the transformed time s = Gamma(t), where velocity jumps become
# continuous arcs.  Drawn by compare_trajectories.gp.
in_s = 1
load 'compare_trajectories.gp'
