package rerun

import (
	"github.com/ledgercheck/ledgercheck/internal/finding"
	"github.com/ledgercheck/ledgercheck/internal/rule"
)

// The ids of the rules the audits report (see the package documentation).
const (
	RuleRerunInstallFailed    = "rerun-install-failed"
	RuleRerunFixtureFailed    = "rerun-fixture-failed"
	RuleRerunFailed           = "rerun-failed"
	RuleRerunCatalogChanged   = "rerun-catalog-changed"
	RuleRerunRowsLost         = "rerun-rows-lost"
	RuleRerunRowsDuplicated   = "rerun-rows-duplicated"
	RuleRerunRowsChanged      = "rerun-rows-changed"
	RuleRerunRowsAdded        = "rerun-rows-added"
	RuleUpgradePreviousFailed = "upgrade-previous-failed"
	RuleUpgradeFixtureFailed  = "upgrade-fixture-failed"
	RuleUpgradeFailed         = "upgrade-failed"
	RuleUpgradeStaleObject    = "upgrade-stale-object"
	RuleUpgradeMissingObject  = "upgrade-missing-object"
	RuleUpgradeCatalogDiffers = "upgrade-catalog-differs"
	RuleUpgradeRowsLost       = "upgrade-rows-lost"
)

// The audits' rules in the catalog (internal/rule), for `ledgercheck explain` and SARIF.
var (
	_ = rule.Register(rule.Rule{ID: RuleRerunInstallFailed, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunFixtureFailed, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunFailed, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunCatalogChanged, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsLost, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsDuplicated, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsChanged, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleRerunRowsAdded, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradePreviousFailed, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeFixtureFailed, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeFailed, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeStaleObject, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeMissingObject, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeCatalogDiffers, Phase: finding.PhaseRerun, Severity: finding.SevError})
	_ = rule.Register(rule.Rule{ID: RuleUpgradeRowsLost, Phase: finding.PhaseRerun, Severity: finding.SevError})
)
