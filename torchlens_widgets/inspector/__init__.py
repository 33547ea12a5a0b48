"""The inspector: the facts of the selected node (facts.py), its value (tensors.py), the reply that
carries both (reply.py), and the diff's difference panel beside them (difference.py)."""
