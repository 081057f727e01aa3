"""Chapter 4 has no hidden cases.

ch04.bfs_prediction is a single number. ch04.topological_order and ch04.run_backward are
both checked on the same ten graphs, built to refuse breadth-first, pre-order, counted-users
and recursive walks (a chain 5,000 deep); topological_order must also refuse four hand-made
loops (a node that uses itself, two that use each other, a ring of three, a loop through the
root). ch04.div is checked at two points, on div(a, a) and inside a bigger expression, each
against the engine's own gradients; no plausible wrong answer we could write passes those and
fails another input.
"""
