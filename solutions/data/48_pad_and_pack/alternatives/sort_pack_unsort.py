"""F.pad per sequence and stack; the model sorts by length itself, packs with enforce_sorted=True
and puts h_n back in the batch order with the inverse permutation."""
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence


def pad_collate(batch, pad_value=0.0):
    seqs, labels = zip(*batch)
    lengths = torch.as_tensor([len(s) for s in seqs], dtype=torch.int64)
    if int(lengths.min()) == 0:
        raise ValueError("pad_collate got an empty sequence")
    longest = int(lengths.max())
    padded = torch.stack([F.pad(s, (0, 0, 0, longest - len(s)), value=pad_value) for s in seqs])
    return padded, lengths, torch.as_tensor(labels, dtype=torch.int64)


class PackedGRUClassifier(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes):
        super().__init__()
        self.gru = nn.GRU(input_size, hidden_size, batch_first=True)
        self.fc = nn.Linear(hidden_size, num_classes)

    def forward(self, padded, lengths):
        lengths = lengths.to("cpu")
        sorted_lengths, order = torch.sort(lengths, descending=True)
        packed = pack_padded_sequence(padded.index_select(0, order.to(padded.device)), sorted_lengths,
                                      batch_first=True, enforce_sorted=True)
        _, h_n = self.gru(packed)
        inverse = torch.empty_like(order)
        inverse[order] = torch.arange(len(order))
        return self.fc(h_n[-1].index_select(0, inverse.to(padded.device)))
