"""A collate_fn that fills a new_full tensor row by row; a model that runs the GRU on each
sequence's real steps, one at a time, and stacks the final states."""
import torch
from torch import nn


def pad_collate(batch, pad_value=0.0):
    if not batch:
        raise ValueError("empty batch")
    first = batch[0][0]
    longest = max(seq.size(0) for seq, _ in batch)
    padded = first.new_full((len(batch), longest, first.size(1)), pad_value)
    lengths = torch.empty(len(batch), dtype=torch.long)
    labels = torch.empty(len(batch), dtype=torch.long)
    for i, (seq, label) in enumerate(batch):
        if seq.size(0) == 0:
            raise ValueError(f"sample {i} is an empty sequence")
        padded[i, :seq.size(0)] = seq
        lengths[i] = seq.size(0)
        labels[i] = label
    return padded, lengths, labels


class PackedGRUClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, padded, lengths):
        finals = []
        for row, n in zip(padded, lengths.tolist()):
            _, h = self.gru(row[:n].unsqueeze(0))
            finals.append(h[-1, 0])
        return self.fc(torch.stack(finals))
