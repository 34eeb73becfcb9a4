"""The GRU runs over the whole padded tensor; the output at each sequence's own last step
(lengths - 1) is the state after its real steps, since a GRU only looks backwards in time."""
import torch
from torch import nn
from torch.nn.utils.rnn import pad_sequence


def pad_collate(batch, pad_value=0.0):
    for i, (seq, _) in enumerate(batch):
        if len(seq) == 0:
            raise ValueError(f"sequence {i} has length 0")
    padded = pad_sequence([seq for seq, _ in batch], batch_first=True, padding_value=pad_value)
    lengths = torch.tensor([len(seq) for seq, _ in batch])
    labels = torch.tensor([label for _, label in batch])
    return padded, lengths, labels


class PackedGRUClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, padded, lengths):
        output, _ = self.gru(padded)
        last = (lengths.to(padded.device).long() - 1).view(-1, 1, 1).expand(-1, 1, output.size(2))
        return self.fc(output.gather(1, last).squeeze(1))
