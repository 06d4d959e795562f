"""A GAN's losses keyed by the model part they train and the term, with no loss noun.

A GAN's loop often names each of its losses by the network it trains (the generator ``G``,
the discriminator ``D``) and the term (its total, its reconstruction or adversarial term),
and leaves the word "loss" out: 0825pm/T2P ``train_gan.py`` prints ``TRAIN | G_Total: ...
(Recon: ...) | D: ...`` and a tqdm postfix ``G_Recon=..., G_Adv=...``. Such a key is one
network's loss: a term of the run's objective, as ``g_loss`` and ``d_loss`` are
(:data:`~denpex_callbacks.logs.lexicon.COMPONENT`). Both words are needed: a bare ``G`` or
``D`` is as often a dimension or a count, and ``total`` or ``adv`` alone names nothing.
"""

from __future__ import annotations

# The networks of a GAN, as loops abbreviate them (pix2pix's and CycleGAN's ``G_GAN``,
# ``D_real``; ``netG``/``netD``; ``gen``/``disc``).
_PARTS = frozenset({"g", "d", "gen", "disc", "generator", "discriminator", "netg", "netd"})
# The terms a GAN's network is trained on, and its total: reconstruction, adversarial, the
# cycle-consistency and identity terms, the feature-matching and perceptual ones, a gradient
# penalty. Not "real"/"fake" alone: ``D_real`` is as often the discriminator's output. Not
# "gan": ``gen_gan``/``disc_gan`` are the First Order Motion Model's scores, which
# metric_pairs reads by their line's layout (``00000012) perceptual - nan; gen_gan - ...``),
# a layout read only where no name is the lexicon's.
_TERMS = frozenset({"total", "recon", "rec", "reconstruction", "adv", "adversarial",
                    "cycle", "idt", "identity", "fm", "perceptual", "percep", "vgg", "gp"})


def gan_term(parts: tuple[str, ...]) -> bool:
    """Whether a key's words are a GAN's network and one of its loss terms, in that order.

    Example:
        >>> [gan_term(p) for p in (("g", "total"), ("g", "recon"), ("d", "adv"),
        ...                        ("gen", "adv"), ("d",), ("total",), ("g", "lr"),
        ...                        ("d", "real"), ("recon", "g"), ("gen", "gan"))]
        [True, True, True, True, False, False, False, False, False, False]
    """
    return len(parts) == 2 and parts[0] in _PARTS and parts[1] in _TERMS
