"""The bottom layer: errors, text utilities, process settings and tuned constants. Every package
may import it; it imports nothing of ours."""
