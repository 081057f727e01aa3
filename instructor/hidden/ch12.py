"""Chapter 12 has no hidden cases.

ch12.recall_precision is checked on matrices of 2, 3 and 4 classes whose row and column sums
differ, and ch12.cross_entropy_grad on 4 batches (2 to 10 classes, logits that overflow exp(),
rows far apart); no plausible wrong answer we could write passes those and fails another input.
"""
