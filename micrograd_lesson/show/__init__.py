"""How the course shows things in a notebook, above the maths and below the course plumbing.

draw           draw_dot: a computation graph, drawn with Graphviz
backward_pass  the backward pass recorded step by step (no pictures)
stepthrough    step_through: that pass drawn frame by frame, with a slider
plots          loss curves and decision boundaries (matplotlib)
widgets        fit's progress bar and frame_slider (ipywidgets)
notebook       the notebook area every picture fits, and the bundle Jupyter is handed
"""
