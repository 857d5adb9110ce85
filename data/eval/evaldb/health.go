package evaldb

import (
	"fmt"
	"time"
)

// health follows Synthea's CSV export loaded into SQLite: UPPERCASE column
// names, text UUIDs, a reference column named after the table it points to
// (PATIENT → patients.Id), START/STOP with STOP NULL while a condition or
// medication is ongoing, SNOMED-CT, RxNorm and CVX codes. Records run from
// 2015-01-01 to 2024-12-31 in Massachusetts.
var healthSchema = []string{
	`CREATE TABLE organizations (
  Id          TEXT NOT NULL PRIMARY KEY,
  NAME        TEXT NOT NULL,
  ADDRESS     TEXT,
  CITY        TEXT,
  STATE       TEXT,
  ZIP         TEXT,
  PHONE       TEXT,
  REVENUE     REAL,
  UTILIZATION INTEGER
)`,
	`CREATE TABLE providers (
  Id           TEXT NOT NULL PRIMARY KEY,
  ORGANIZATION TEXT NOT NULL REFERENCES organizations (Id),
  NAME         TEXT NOT NULL,
  GENDER       TEXT,
  SPECIALITY   TEXT,
  ADDRESS      TEXT,
  CITY         TEXT,
  STATE        TEXT,
  ZIP          TEXT,
  UTILIZATION  INTEGER
)`,
	`CREATE TABLE payers (
  Id                  TEXT NOT NULL PRIMARY KEY,
  NAME                TEXT NOT NULL,
  OWNERSHIP           TEXT,
  STATE_HEADQUARTERED TEXT
)`,
	`CREATE TABLE patients (
  Id                  TEXT NOT NULL PRIMARY KEY,
  BIRTHDATE           DATE NOT NULL,
  DEATHDATE           DATE,
  SSN                 TEXT,
  DRIVERS             TEXT,
  PREFIX              TEXT,
  FIRST               TEXT NOT NULL,
  LAST                TEXT NOT NULL,
  MARITAL             TEXT,
  RACE                TEXT,
  ETHNICITY           TEXT,
  GENDER              TEXT,
  BIRTHPLACE          TEXT,
  ADDRESS             TEXT,
  CITY                TEXT,
  STATE               TEXT,
  COUNTY              TEXT,
  ZIP                 TEXT,
  HEALTHCARE_EXPENSES REAL,
  HEALTHCARE_COVERAGE REAL
)`,
	`CREATE TABLE encounters (
  Id                  TEXT NOT NULL PRIMARY KEY,
  START               TEXT NOT NULL,
  STOP                TEXT,
  PATIENT             TEXT NOT NULL REFERENCES patients (Id),
  ORGANIZATION        TEXT NOT NULL REFERENCES organizations (Id),
  PROVIDER            TEXT NOT NULL REFERENCES providers (Id),
  PAYER               TEXT NOT NULL REFERENCES payers (Id),
  ENCOUNTERCLASS      TEXT NOT NULL,
  CODE                TEXT NOT NULL,
  DESCRIPTION         TEXT,
  BASE_ENCOUNTER_COST REAL,
  TOTAL_CLAIM_COST    REAL,
  PAYER_COVERAGE      REAL,
  REASONCODE          TEXT,
  REASONDESCRIPTION   TEXT
)`,
	`CREATE TABLE conditions (
  START       DATE NOT NULL,
  STOP        DATE,
  PATIENT     TEXT NOT NULL REFERENCES patients (Id),
  ENCOUNTER   TEXT NOT NULL REFERENCES encounters (Id),
  CODE        TEXT NOT NULL,
  DESCRIPTION TEXT
)`,
	`CREATE TABLE medications (
  START             TEXT NOT NULL,
  STOP              TEXT,
  PATIENT           TEXT NOT NULL REFERENCES patients (Id),
  PAYER             TEXT NOT NULL REFERENCES payers (Id),
  ENCOUNTER         TEXT NOT NULL REFERENCES encounters (Id),
  CODE              TEXT NOT NULL,
  DESCRIPTION       TEXT,
  BASE_COST         REAL,
  PAYER_COVERAGE    REAL,
  DISPENSES         INTEGER,
  TOTALCOST         REAL,
  REASONCODE        TEXT,
  REASONDESCRIPTION TEXT
)`,
	`CREATE TABLE immunizations (
  DATE        TEXT NOT NULL,
  PATIENT     TEXT NOT NULL REFERENCES patients (Id),
  ENCOUNTER   TEXT NOT NULL REFERENCES encounters (Id),
  CODE        TEXT NOT NULL,
  DESCRIPTION TEXT,
  BASE_COST   REAL
)`,
	`CREATE INDEX encounters_patient ON encounters (PATIENT)`,
	`CREATE INDEX conditions_patient ON conditions (PATIENT)`,
	`CREATE INDEX medications_patient ON medications (PATIENT)`,
}

type code struct{ code, desc string }

var (
	hcCities = []struct {
		name, county, zip string
		weight            int
	}{
		{"Boston", "Suffolk County", "02118", 20}, {"Worcester", "Worcester County", "01608", 10},
		{"Springfield", "Hampden County", "01103", 8}, {"Cambridge", "Middlesex County", "02139", 6},
		{"Lowell", "Middlesex County", "01852", 6}, {"Brockton", "Plymouth County", "02301", 5},
		{"Quincy", "Norfolk County", "02169", 5}, {"Lynn", "Essex County", "01902", 5},
		{"New Bedford", "Bristol County", "02740", 5}, {"Newton", "Middlesex County", "02458", 4},
		{"Somerville", "Middlesex County", "02143", 4}, {"Framingham", "Middlesex County", "01702", 4},
		{"Waltham", "Middlesex County", "02451", 3}, {"Pittsfield", "Berkshire County", "01201", 3},
		{"Salem", "Essex County", "01970", 3},
	}
	hcHospitals = []struct{ name, city string }{
		{"MASSACHUSETTS GENERAL HOSPITAL", "Boston"}, {"BRIGHAM AND WOMEN'S HOSPITAL", "Boston"},
		{"BETH ISRAEL DEACONESS MEDICAL CENTER", "Boston"}, {"BOSTON MEDICAL CENTER CORPORATION", "Boston"},
		{"UMASS MEMORIAL MEDICAL CENTER INC", "Worcester"}, {"BAYSTATE MEDICAL CENTER", "Springfield"},
		{"MOUNT AUBURN HOSPITAL", "Cambridge"}, {"LOWELL GENERAL HOSPITAL", "Lowell"},
		{"SIGNATURE HEALTHCARE BROCKTON HOSPITAL", "Brockton"}, {"SOUTHCOAST HOSPITAL GROUP INC", "New Bedford"},
		{"BERKSHIRE MEDICAL CENTER INC", "Pittsfield"}, {"NORTH SHORE MEDICAL CENTER", "Salem"},
	}
	hcClinics = []struct{ name, city string }{
		{"HARBOR HEALTH SERVICES INC", "Boston"}, {"EAST BOSTON NEIGHBORHOOD HEALTH CENTER", "Boston"},
		{"FAMILY HEALTH CENTER OF WORCESTER INC", "Worcester"}, {"CARESOUTH PRIMARY CARE", "Springfield"},
		{"CAMBRIDGE HEALTH ALLIANCE", "Cambridge"}, {"LOWELL COMMUNITY HEALTH CENTER", "Lowell"},
		{"BROCKTON NEIGHBORHOOD HEALTH CENTER", "Brockton"}, {"MANET COMMUNITY HEALTH CENTER INC", "Quincy"},
		{"LYNN COMMUNITY HEALTH CENTER", "Lynn"}, {"GREATER NEW BEDFORD COMMUNITY HEALTH CENTER", "New Bedford"},
		{"NEWTON-WELLESLEY PRIMARY CARE", "Newton"}, {"SOMERVILLE PRIMARY CARE", "Somerville"},
		{"EDWARD M. KENNEDY COMMUNITY HEALTH CENTER", "Framingham"}, {"WALTHAM FAMILY MEDICINE", "Waltham"},
		{"COMMUNITY HEALTH PROGRAMS INC", "Pittsfield"}, {"SALEM FAMILY HEALTH", "Salem"},
	}
	hcPayers = []struct {
		name, ownership string
		coverage        float64
	}{
		{"Medicare", "GOVERNMENT", 0.8}, {"Medicaid", "GOVERNMENT", 1}, {"Dual Eligible", "GOVERNMENT", 0.95},
		{"Aetna", "PRIVATE", 0.75}, {"Anthem", "PRIVATE", 0.7}, {"Blue Cross Blue Shield", "PRIVATE", 0.85},
		{"Cigna Health", "PRIVATE", 0.72}, {"Humana", "PRIVATE", 0.68}, {"UnitedHealthcare", "PRIVATE", 0.8},
		{"NO_INSURANCE", "NO_INSURANCE", 0},
	}

	condHypertension  = code{"59621000", "Essential hypertension (disorder)"}
	condPrediabetes   = code{"15777000", "Prediabetes"}
	condDiabetes      = code{"44054006", "Diabetes mellitus type 2 (disorder)"}
	condHyperlipid    = code{"55822004", "Hyperlipidemia"}
	condObesity       = code{"162864005", "Body mass index 30+ - obesity (finding)"}
	condAsthma        = code{"195967001", "Asthma"}
	condSinusitisChr  = code{"40055000", "Chronic sinusitis (disorder)"}
	condViralSinus    = code{"444814009", "Viral sinusitis (disorder)"}
	condBronchitis    = code{"10509002", "Acute bronchitis (disorder)"}
	condPharyngitis   = code{"195662009", "Acute viral pharyngitis (disorder)"}
	condOtitis        = code{"65363002", "Otitis media"}
	condSprain        = code{"44465007", "Sprain of ankle"}
	condFracture      = code{"65966004", "Fracture of forearm"}
	condConcussion    = code{"62106007", "Concussion with no loss of consciousness"}
	condLaceration    = code{"283371005", "Laceration of forearm"}
	condCovid         = code{"840539006", "COVID-19"}
	condPneumonia     = code{"233604007", "Pneumonia"}
	condMI            = code{"22298006", "Myocardial infarction"}
	condStroke        = code{"230690007", "Stroke"}
	medLisinopril     = code{"314076", "lisinopril 10 MG Oral Tablet"}
	medHCTZ           = code{"310798", "Hydrochlorothiazide 25 MG Oral Tablet"}
	medMetformin      = code{"860975", "24 HR Metformin hydrochloride 500 MG Extended Release Oral Tablet"}
	medSimvastatin    = code{"314231", "Simvastatin 10 MG Oral Tablet"}
	medAlbuterol      = code{"745679", "200 ACTUAT Albuterol 0.09 MG/ACTUAT Metered Dose Inhaler"}
	medFluticasone    = code{"895994", "120 ACTUAT Fluticasone propionate 0.044 MG/ACTUAT Metered Dose Inhaler"}
	medClopidogrel    = code{"309362", "Clopidogrel 75 MG Oral Tablet"}
	medAmoxicillin    = code{"308182", "Amoxicillin 250 MG Oral Capsule"}
	medPenicillin     = code{"834061", "Penicillin V Potassium 250 MG Oral Tablet"}
	medAcetaminophen  = code{"313782", "Acetaminophen 325 MG Oral Tablet"}
	medIbuprofen      = code{"310965", "Ibuprofen 200 MG Oral Tablet"}
	medNaproxen       = code{"849574", "Naproxen sodium 220 MG Oral Tablet"}
	medOxycodone      = code{"1049221", "Acetaminophen 325 MG / Oxycodone Hydrochloride 5 MG Oral Tablet"}
	medNitroglycerin  = code{"705129", "Nitroglycerin 0.4 MG/ACTUAT Mucosal Spray"}
	immFlu            = code{"140", "Influenza, seasonal, injectable, preservative free"}
	immTd             = code{"113", "Td (adult) preservative free"}
	immCovid          = code{"208", "SARS-COV-2 (COVID-19) vaccine, mRNA, spike protein, LNP, preservative free, 30 mcg/0.3mL dose"}
	immHPV            = code{"62", "HPV, quadrivalent"}
	immZoster         = code{"121", "zoster"}
	immPneumococcal   = code{"133", "Pneumococcal conjugate PCV 13"}
	encWellness       = code{"162673000", "General examination of patient (procedure)"}
	encSymptom        = code{"185345009", "Encounter for symptom"}
	encCheckup        = code{"185349003", "Encounter for check up (procedure)"}
	encUrgent         = code{"702927004", "Urgent care clinic (procedure)"}
	encEmergency      = code{"50849002", "Emergency room admission (procedure)"}
	encInpatient      = code{"32485007", "Hospital admission (procedure)"}
	encProblem        = code{"185347001", "Encounter for problem (procedure)"}
	hcMedCost         = map[code]float64{medLisinopril: 12.5, medHCTZ: 8.75, medMetformin: 25.4, medSimvastatin: 14.2, medAlbuterol: 58.9, medFluticasone: 142.3, medClopidogrel: 18.6, medAmoxicillin: 11.9, medPenicillin: 9.2, medAcetaminophen: 5.15, medIbuprofen: 4.8, medNaproxen: 6.1, medOxycodone: 22.7, medNitroglycerin: 31.4}
	hcChronicMedicine = map[code][]code{condHypertension: {medLisinopril, medHCTZ}, condDiabetes: {medMetformin}, condHyperlipid: {medSimvastatin}, condAsthma: {medAlbuterol, medFluticasone}, condMI: {medClopidogrel}}
	hcAcuteMedicine   = map[code][]code{condViralSinus: {medAmoxicillin}, condOtitis: {medAmoxicillin}, condPharyngitis: {medPenicillin}, condBronchitis: {medAcetaminophen}, condSprain: {medIbuprofen, medNaproxen}, condFracture: {medOxycodone}, condConcussion: {medAcetaminophen}, condLaceration: {medIbuprofen}, condCovid: {medAcetaminophen}, condPneumonia: {medAmoxicillin}, condMI: {medNitroglycerin}}
	hcFirst           = date(2015, 1, 1)
	hcEnd             = date(2024, 12, 31)
)

func (r rng) uuid() string {
	a, b := r.Uint64(), r.Uint64()
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", a>>32, (a>>16)&0xffff, 0x4000|(a&0x0fff), 0x8000|(b>>48)&0x3fff, b&0xffffffffffff)
}

func synthTime(t time.Time) string { return t.Format("2006-01-02T15:04:05Z") }

type hcOrg struct {
	id, city  string
	providers map[string][]string // speciality → provider ids
}

func buildHealth(b *builder) {
	r := newRNG(1848)
	b.exec(healthSchema...)
	payerIDs := make([]string, len(hcPayers))
	for i, p := range hcPayers {
		payerIDs[i] = r.uuid()
		b.insert("payers", payerIDs[i], p.name, p.ownership, "Massachusetts")
	}
	zip := map[string]string{}
	for _, c := range hcCities {
		zip[c.name] = c.zip
	}
	newOrg := func(name, city string, specs []string, lo, hi int) hcOrg {
		o := hcOrg{id: r.uuid(), city: city, providers: map[string][]string{}}
		addr := fmt.Sprintf("%d %s", r.between(1, 999), pick(r, []string{"MAIN ST", "WASHINGTON ST", "ELM ST", "HIGHLAND AVE", "PLEASANT ST", "CENTRAL ST", "CHESTNUT ST"}))
		b.insert("organizations", o.id, name, addr, city, "MA", zip[city], fmt.Sprintf("%03d-%03d-%04d", r.between(413, 978), r.IntN(1000), r.IntN(10000)), 0.0, 0)
		for _, s := range specs {
			for range r.between(lo, hi) {
				gender, first, last := r.person(0.5)
				id := r.uuid()
				b.insert("providers", id, o.id, first+" "+last, gender, s, addr, city, "MA", zip[city], 0)
				o.providers[s] = append(o.providers[s], id)
			}
		}
		return o
	}
	var hospitals, clinics []hcOrg
	for _, h := range hcHospitals {
		hospitals = append(hospitals, newOrg(h.name, h.city, []string{"EMERGENCY MEDICINE", "INTERNAL MEDICINE", "CARDIOLOGY", "GENERAL SURGERY"}, 1, 3))
	}
	for _, c := range hcClinics {
		clinics = append(clinics, newOrg(c.name, c.city, []string{"GENERAL PRACTICE", "FAMILY MEDICINE", "PEDIATRICS"}, 1, 3))
	}
	cityWeights := make([]int, len(hcCities))
	for i, c := range hcCities {
		cityWeights[i] = c.weight
	}
	near := func(orgs []hcOrg, city string) hcOrg {
		var here []hcOrg
		for _, o := range orgs {
			if o.city == city {
				here = append(here, o)
			}
		}
		if len(here) == 0 {
			return orgs[r.IntN(4)] // the big Boston hospitals
		}
		return pick(r, here)
	}
	for range 1000 {
		hcPatient(b, r, payerIDs, hcCities[r.weighted(cityWeights)].name, near, clinics, hospitals)
	}
	b.exec(`UPDATE organizations SET UTILIZATION = u.n, REVENUE = u.revenue
FROM (SELECT ORGANIZATION, COUNT(*) AS n, ROUND(SUM(TOTAL_CLAIM_COST), 2) AS revenue FROM encounters GROUP BY ORGANIZATION) AS u
WHERE u.ORGANIZATION = organizations.Id`,
		`UPDATE providers SET UTILIZATION = u.n
FROM (SELECT PROVIDER, COUNT(*) AS n FROM encounters GROUP BY PROVIDER) AS u
WHERE u.PROVIDER = providers.Id`)
}

// hcPatient writes one patient's life from 2015 to the end of 2024.
func hcPatient(b *builder, r rng, payerIDs []string, city string, near func([]hcOrg, string) hcOrg, clinics, hospitals []hcOrg) {
	age := []int{r.between(0, 17), r.between(18, 39), r.between(40, 64), r.between(65, 79), r.between(80, 95)}[r.weighted([]int{20, 28, 30, 15, 7})]
	birth := r.randomDay(date(2024-age, 1, 1), date(2024-age, 12, 31))
	gender, first, last := r.person(0.49)
	id := r.uuid()
	var death time.Time
	for y := 2015; y <= 2024; y++ {
		a := y - birth.Year()
		p := 0.002
		switch {
		case a >= 85:
			p = 0.1
		case a >= 75:
			p = 0.05
		case a >= 65:
			p = 0.02
		}
		if a >= 0 && r.chance(p) {
			death = r.randomDay(date(y, 1, 1), date(y, 12, 31))
			if death.Before(birth) {
				death = birth.AddDate(0, 1, 0)
			}
			break
		}
	}
	end := hcEnd
	if !death.IsZero() {
		end = death
	}
	clinic, hospital := near(clinics, city), near(hospitals, city)
	specialty := "GENERAL PRACTICE"
	if age < 18 {
		specialty = "PEDIATRICS"
	} else if r.chance(0.3) {
		specialty = "FAMILY MEDICINE"
	}
	pcp := pick(r, clinic.providers[specialty])
	plan, private := r.weighted([]int{15, 7, 78}), 3+r.IntN(6) // Medicaid, uninsured, private
	payerAt := func(t time.Time) int {
		switch a := t.Year() - birth.Year(); {
		case a >= 65 && plan == 0:
			return 2 // dual eligible
		case a >= 65:
			return 0 // Medicare
		case plan == 0:
			return 1
		case plan == 1:
			return 9 // no insurance
		}
		return private
	}

	var rows [][]any // table name first, then the values, written after the patient row
	expenses, coverage := 0.0, 0.0
	chronic := map[code]bool{}
	encounter := func(t time.Time, class string, enc code, org hcOrg, prov string, reason *code) string {
		eid := r.uuid()
		payer := payerAt(t)
		var stop time.Time
		base, extra := 129.16, 0.0
		switch class {
		case "wellness":
			base, extra = 136.8, float64(r.IntN(400))
			stop = t.Add(time.Duration(r.between(15, 45)) * time.Minute)
		case "emergency":
			base, extra = 146.18, 400+float64(r.IntN(3600))
			stop = t.Add(time.Duration(r.between(90, 480)) * time.Minute)
		case "inpatient":
			base, extra = 106.54, 4000+float64(r.IntN(36000))
			stop = t.AddDate(0, 0, r.between(1, 9))
		case "urgentcare":
			base, extra = 142.58, float64(r.IntN(300))
			stop = t.Add(time.Duration(r.between(30, 120)) * time.Minute)
		default:
			extra = float64(r.IntN(250))
			stop = t.Add(time.Duration(r.between(15, 60)) * time.Minute)
		}
		total := money(base + extra + float64(r.IntN(100))/100)
		covered := money(total * hcPayers[payer].coverage)
		expenses += total - covered
		coverage += covered
		var rc, rd any
		if reason != nil {
			rc, rd = reason.code, reason.desc
		}
		rows = append(rows, []any{"encounters", eid, synthTime(t), synthTime(stop), id, org.id, prov, payerIDs[payer], class, enc.code, enc.desc, base, total, covered, rc, rd})
		return eid
	}
	condition := func(t time.Time, eid string, c code, lasts int) {
		var stop any
		if lasts > 0 {
			if s := days(t, lasts); !s.After(hcEnd) {
				stop = isoDate(s)
			}
		}
		rows = append(rows, []any{"conditions", isoDate(t), stop, id, eid, c.code, c.desc})
	}
	medication := func(t time.Time, eid string, m code, reason code, stopAt time.Time) {
		var stop any
		until := end
		switch {
		case !stopAt.IsZero() && stopAt.Before(end):
			until, stop = stopAt, synthTime(stopAt)
		case !death.IsZero():
			stop = synthTime(death)
		}
		dispenses := max(1, int(until.Sub(t).Hours()/24/30))
		cost := hcMedCost[m]
		total := money(cost * float64(dispenses))
		covered := money(total * hcPayers[payerAt(t)].coverage)
		expenses += total - covered
		coverage += covered
		rows = append(rows, []any{"medications", synthTime(t), stop, id, payerIDs[payerAt(t)], eid, m.code, m.desc, cost, covered, dispenses, total, reason.code, reason.desc})
	}
	immunize := func(t time.Time, eid string, c code) {
		rows = append(rows, []any{"immunizations", synthTime(t), id, eid, c.code, c.desc, 140.52})
	}
	at := func(y int, fromHour, toHour int) time.Time {
		from := date(y, 1, 1)
		if birth.After(from) {
			from = birth
		}
		to := date(y, 12, 31)
		if end.Before(to) {
			to = end
		}
		d := r.randomDay(from, to)
		return d.Add(time.Duration(r.between(fromHour*60, toHour*60-1)) * time.Minute)
	}
	hadZoster, hadPneumo := false, false
	for y := 2015; y <= end.Year(); y++ {
		a := y - birth.Year()
		if a < 0 || (y == birth.Year() && birth.After(date(y, 11, 30))) {
			continue
		}
		if r.chance(map[bool]float64{true: 0.95, false: 0.72}[a < 18]) {
			t := at(y, 8, 17)
			eid := encounter(t, "wellness", encWellness, clinic, pcp, nil)
			onset := func(c code, p float64) {
				if !chronic[c] && r.chance(p) {
					chronic[c] = true
					lasts := 0
					if c == condObesity && r.chance(0.2) {
						lasts = r.between(200, 1500)
					}
					condition(t, eid, c, lasts)
					for _, m := range hcChronicMedicine[c] {
						var stop time.Time
						if r.chance(0.15) {
							stop = t.AddDate(0, r.between(3, 40), 0)
						}
						medication(t.Add(time.Hour), eid, m, c, stop)
						if c != condAsthma {
							break // one drug for the others
						}
					}
				}
			}
			if a >= 30 {
				onset(condHypertension, 0.012*float64(a)/10)
				onset(condHyperlipid, 0.02)
				onset(condPrediabetes, 0.03)
				onset(condObesity, 0.02)
				if chronic[condPrediabetes] {
					onset(condDiabetes, 0.15)
				}
			}
			if a < 18 {
				onset(condAsthma, 0.015)
			}
			if a >= 18 {
				onset(condSinusitisChr, 0.004)
			}
			if r.chance(0.6) && a >= 1 {
				immunize(t, eid, immFlu)
			}
			if a >= 18 && r.chance(0.08) {
				immunize(t, eid, immTd)
			}
			if a >= 11 && a <= 13 && r.chance(0.5) {
				immunize(t, eid, immHPV)
			}
			if a >= 50 && !hadZoster && r.chance(0.12) {
				hadZoster = true
				immunize(t, eid, immZoster)
			}
			if a >= 65 && !hadPneumo && r.chance(0.3) {
				hadPneumo = true
				immunize(t, eid, immPneumococcal)
			}
		}
		if (y == 2021 || y == 2022) && a >= 12 && r.chance(0.7) {
			t := at(y, 8, 17)
			eid := encounter(t, "ambulatory", encCheckup, clinic, pcp, nil)
			immunize(t, eid, immCovid)
		}
		// Acute problems.
		for range r.weighted([]int{40, 30, 20, 10}) {
			c := pick(r, []code{condViralSinus, condViralSinus, condBronchitis, condPharyngitis, condSprain})
			if a < 10 && r.chance(0.4) {
				c = condOtitis
			}
			t := at(y, 8, 19)
			if t.After(date(2020, 3, 1)) && r.chance(0.15) {
				c = condCovid
			}
			class, enc, org, prov := "ambulatory", encSymptom, clinic, pcp
			if r.chance(0.15) {
				class, enc = "urgentcare", encUrgent
			}
			eid := encounter(t, class, enc, org, prov, &c)
			condition(t, eid, c, r.between(7, 30))
			if ms := hcAcuteMedicine[c]; len(ms) > 0 && r.chance(0.7) {
				medication(t, eid, pick(r, ms), c, days(t, 10))
			}
		}
		if r.chance(0.07 + 0.0015*float64(a)) {
			c := pick(r, []code{condFracture, condConcussion, condLaceration, condSprain})
			if a >= 60 && r.chance(0.3) {
				c = condMI
			}
			t := at(y, 0, 24)
			eid := encounter(t, "emergency", encEmergency, hospital, pick(r, hospital.providers["EMERGENCY MEDICINE"]), &c)
			lasts := r.between(20, 60)
			if c == condMI {
				lasts = 0
				chronic[c] = true
			}
			condition(t, eid, c, lasts)
			if ms := hcAcuteMedicine[c]; len(ms) > 0 {
				medication(t, eid, pick(r, ms), c, days(t, 10))
			}
			if c == condMI {
				medication(t, eid, medClopidogrel, c, time.Time{})
			}
		}
		if r.chance(0.02 + 0.002*float64(a)) {
			c := pick(r, []code{condPneumonia, condPneumonia, condStroke})
			t := at(y, 0, 24)
			if t.After(date(2020, 3, 1)) && r.chance(0.3) {
				c = condCovid
			}
			spec := map[bool]string{true: "CARDIOLOGY", false: "INTERNAL MEDICINE"}[c == condStroke]
			eid := encounter(t, "inpatient", encInpatient, hospital, pick(r, hospital.providers[spec]), &c)
			condition(t, eid, c, r.between(10, 40))
			if ms := hcAcuteMedicine[c]; len(ms) > 0 {
				medication(t, eid, pick(r, ms), c, days(t, 10))
			}
		}
		if len(chronic) > 0 && r.chance(0.3) {
			var list []code
			for _, c := range []code{condHypertension, condDiabetes, condHyperlipid, condAsthma, condMI, condPrediabetes} {
				if chronic[c] {
					list = append(list, c)
				}
			}
			if len(list) > 0 {
				c := pick(r, list)
				encounter(at(y, 8, 17), "outpatient", encProblem, clinic, pcp, &c)
			}
		}
	}

	var deathS, marital, drivers, prefix any
	if !death.IsZero() {
		deathS = isoDate(death)
	}
	if age >= 18 {
		marital = pick(r, []string{"M", "M", "M", "S", "S", "D", "W"})
		if age < 30 && r.chance(0.6) {
			marital = "S"
		}
		drivers = fmt.Sprintf("S999%05d", r.IntN(100000))
		prefix = map[string]string{"M": "Mr.", "F": "Ms."}[gender]
		if gender == "F" && marital == "M" {
			prefix = "Mrs."
		}
	}
	race := []string{"white", "black", "asian", "native", "other"}[r.weighted([]int{72, 10, 9, 1, 8})]
	eth := "nonhispanic"
	if r.chance(0.12) {
		eth = "hispanic"
	}
	var county, zip string
	for _, c := range hcCities {
		if c.name == city {
			county, zip = c.county, c.zip
		}
	}
	bp := pick(r, []string{"Boston Massachusetts US", "Worcester Massachusetts US", "Springfield Massachusetts US", "Providence Rhode Island US", "Hartford Connecticut US", "San Juan Puerto Rico PR", "Santo Domingo National District DO", "Lisbon Lisbon PT", "Shanghai Shanghai CN"})
	b.insert("patients", id, isoDate(birth), deathS, fmt.Sprintf("999-%02d-%04d", r.IntN(100), r.IntN(10000)), drivers, prefix,
		first, last, marital, race, eth, gender, bp, fmt.Sprintf("%d %s", r.between(1, 999), pick(r, []string{"Oak St", "Maple Ave", "Beacon St", "Union St", "School St", "Park Ave"})),
		city, "Massachusetts", county, zip, money(expenses), money(coverage))
	for _, row := range rows {
		b.insert(row[0].(string), row[1:]...)
	}
}
