"""The untrusted side and its boundary: worker processes, the fork server, the safe codec."""
