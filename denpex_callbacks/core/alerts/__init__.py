"""Alerts: a webhook POST and ``wandb.alert`` per new diagnosis (the fingerprint metrics for
dashboard rules are metrics: :mod:`denpex_callbacks.core.metrics_sink`).

Framework-free and standard-library only. Adapters add the sink with
:func:`~denpex_callbacks.core.alerts.sink.attach_alerts`; the environment
(``DENPEX_ALERT_WEBHOOK``...) or the ``alert_*`` config options turn it on
(:mod:`denpex_callbacks.core.alerts.settings`).
"""
