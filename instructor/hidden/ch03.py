"""Chapter 3 has no hidden cases: its three exercises are gradients worked by hand on fixed
expressions and one fixed move, so there is no other input to try them on."""
