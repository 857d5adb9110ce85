package evaldb

import (
	"fmt"
	"time"
)

// logistics follows the habits of a parcel carrier's operational export
// (the shape of warehouse-management and track-and-trace schemas):
// snake_case with abbreviations (wh_code, cust_id, scac, dest_cntry),
// surrogate integer keys next to business codes (wh_code, tracking_no),
// declared foreign keys, one of them named for its role
// (shipments.origin_wh_id → warehouses.warehouse_id), an upper-case event
// enum and a lower-case status enum, timestamps as 'YYYY-MM-DD HH:MM:SS'
// text next to plain dates, money as REAL, nullable ship_date,
// delivered_date, driver_id and termination_date, and 0/1 flags
// (is_fragile, active). A carrier with no shipments exists. The snapshot is
// 2025-10-31.
var logisticsSchema = []string{
	`CREATE TABLE warehouses (
  warehouse_id INTEGER NOT NULL PRIMARY KEY,
  wh_code      TEXT    NOT NULL UNIQUE,
  wh_name      TEXT    NOT NULL,
  city         TEXT    NOT NULL,
  country_code TEXT    NOT NULL, -- ISO 3166 alpha-2
  capacity_sqm INTEGER NOT NULL,
  opened_on    DATE    NOT NULL
)`,
	`CREATE TABLE carriers (
  carrier_id   INTEGER NOT NULL PRIMARY KEY,
  carrier_name TEXT    NOT NULL UNIQUE,
  scac         TEXT    NOT NULL UNIQUE, -- Standard Carrier Alpha Code
  mode         TEXT    NOT NULL,        -- ground, air, ocean
  active       INTEGER NOT NULL         -- 0/1
)`,
	`CREATE TABLE drivers (
  driver_id        INTEGER NOT NULL PRIMARY KEY,
  carrier_id       INTEGER NOT NULL REFERENCES carriers (carrier_id),
  first_name       TEXT    NOT NULL,
  last_name        TEXT    NOT NULL,
  license_class    TEXT    NOT NULL, -- A, B, C
  hire_date        DATE    NOT NULL,
  termination_date DATE              -- NULL while employed
)`,
	`CREATE TABLE customers (
  cust_id      INTEGER NOT NULL PRIMARY KEY,
  company_name TEXT    NOT NULL,
  city         TEXT    NOT NULL,
  country_code TEXT    NOT NULL,
  acct_tier    TEXT    NOT NULL, -- standard, priority, enterprise
  created_on   DATE    NOT NULL
)`,
	`CREATE TABLE shipments (
  shipment_id    INTEGER NOT NULL PRIMARY KEY,
  tracking_no    TEXT    NOT NULL UNIQUE,
  cust_id        INTEGER NOT NULL REFERENCES customers (cust_id),
  origin_wh_id   INTEGER NOT NULL REFERENCES warehouses (warehouse_id),
  carrier_id     INTEGER NOT NULL REFERENCES carriers (carrier_id),
  driver_id      INTEGER REFERENCES drivers (driver_id), -- NULL until assigned
  service_level  TEXT    NOT NULL, -- standard, express, overnight
  status         TEXT    NOT NULL, -- created, in_transit, delivered, returned, lost
  dest_city      TEXT    NOT NULL,
  dest_cntry     TEXT    NOT NULL,
  created_at     TEXT    NOT NULL, -- YYYY-MM-DD HH:MM:SS
  ship_date      DATE,
  promised_date  DATE    NOT NULL,
  delivered_date DATE,
  freight_cost   REAL    NOT NULL,
  declared_value REAL
)`,
	`CREATE TABLE parcels (
  parcel_id   INTEGER NOT NULL PRIMARY KEY,
  shipment_id INTEGER NOT NULL REFERENCES shipments (shipment_id),
  weight_kg   REAL    NOT NULL,
  length_cm   INTEGER NOT NULL,
  width_cm    INTEGER NOT NULL,
  height_cm   INTEGER NOT NULL,
  is_fragile  INTEGER NOT NULL -- 0/1
)`,
	`CREATE TABLE tracking_events (
  event_id      INTEGER NOT NULL PRIMARY KEY,
  shipment_id   INTEGER NOT NULL REFERENCES shipments (shipment_id),
  event_ts      TEXT    NOT NULL, -- YYYY-MM-DD HH:MM:SS
  event_type    TEXT    NOT NULL, -- PICKED_UP, DEPARTED_HUB, ARRIVED_HUB, OUT_FOR_DELIVERY, DELIVERED, EXCEPTION, RETURNED
  location_city TEXT    NOT NULL,
  note          TEXT
)`,
	`CREATE INDEX shipments_cust ON shipments (cust_id)`,
	`CREATE INDEX parcels_shipment ON parcels (shipment_id)`,
	`CREATE INDEX events_shipment ON tracking_events (shipment_id)`,
}

var (
	logWarehouses = []struct {
		code, name, city, country string
		sqm                       int
		opened                    time.Time
		weight                    int
	}{
		{"RTM1", "Rotterdam Port DC", "Rotterdam", "NL", 42000, date(2012, 4, 2), 22},
		{"DUS2", "Duesseldorf Hub", "Duesseldorf", "DE", 28000, date(2015, 9, 14), 16},
		{"LYS1", "Lyon Saint-Exupery", "Lyon", "FR", 19500, date(2017, 3, 6), 11},
		{"MAD3", "Madrid Coslada", "Madrid", "ES", 24000, date(2016, 6, 20), 13},
		{"MXP1", "Milan Malpensa", "Milan", "IT", 17000, date(2018, 1, 8), 10},
		{"WAW2", "Warsaw East", "Warsaw", "PL", 31000, date(2019, 10, 1), 12},
		{"EMA1", "East Midlands Gateway", "Derby", "GB", 36000, date(2014, 2, 17), 14},
		{"GOT1", "Gothenburg North", "Gothenburg", "SE", 9800, date(2023, 5, 15), 2},
	}
	logCarriers = []struct {
		name, scac, mode string
		active           int
		weight           int
	}{
		{"NorthStar Freight", "NSFT", "ground", 1, 30},
		{"Bluewing Air Cargo", "BWAC", "air", 1, 14},
		{"Continental Road Lines", "CRDL", "ground", 1, 24},
		{"Meridian Express", "MRDX", "air", 1, 12},
		{"Harbor & Main Ocean", "HMOC", "ocean", 1, 6},
		{"Pelican Parcel", "PLCN", "ground", 1, 14},
		{"Atlas Overland", "ATLO", "ground", 0, 0}, // contract ended: no shipments
	}
	logCities = []struct{ city, country string }{
		{"Amsterdam", "NL"}, {"Utrecht", "NL"}, {"Berlin", "DE"}, {"Hamburg", "DE"}, {"Munich", "DE"},
		{"Cologne", "DE"}, {"Paris", "FR"}, {"Marseille", "FR"}, {"Toulouse", "FR"}, {"Barcelona", "ES"},
		{"Valencia", "ES"}, {"Seville", "ES"}, {"Rome", "IT"}, {"Turin", "IT"}, {"Naples", "IT"},
		{"Krakow", "PL"}, {"Gdansk", "PL"}, {"London", "GB"}, {"Manchester", "GB"}, {"Leeds", "GB"},
		{"Stockholm", "SE"}, {"Malmo", "SE"}, {"Vienna", "AT"}, {"Brussels", "BE"}, {"Copenhagen", "DK"},
		{"Dublin", "IE"}, {"Lisbon", "PT"}, {"Prague", "CZ"},
	}
	logCompanyA = []string{"Acme", "Nordic", "Vertex", "Helio", "Brightline", "Cobalt", "Evergreen", "Summit", "Orion",
		"Pioneer", "Crescent", "Redwood", "Granite", "Silverleaf", "Keystone", "Lumen", "Harvest", "Quantum", "Sterling",
		"Falcon", "Juniper", "Maple", "Tidewater", "Ironbridge"}
	logCompanyB = []string{"Outfitters", "Components", "Pharma", "Foods", "Electronics", "Home Goods", "Textiles", "Tools",
		"Cosmetics", "Books", "Auto Parts", "Toys", "Furniture", "Sports", "Medical"}
	logCompanyC = []string{"BV", "GmbH", "SA", "Ltd", "S.p.A.", "AB", "Sp. z o.o."}
	logNotes    = []string{"address not found", "recipient absent", "damaged packaging", "customs hold",
		"weather delay", "refused by recipient"}
	logSnapshot = date(2025, 10, 31)
)

func buildLogistics(b *builder) {
	r := newRNG(4417)
	b.exec(logisticsSchema...)
	whW := make([]int, len(logWarehouses))
	for i, w := range logWarehouses {
		b.insert("warehouses", i+1, w.code, w.name, w.city, w.country, w.sqm, isoDate(w.opened))
		whW[i] = w.weight
	}
	carW := make([]int, len(logCarriers))
	for i, c := range logCarriers {
		b.insert("carriers", i+1, c.name, c.scac, c.mode, c.active)
		carW[i] = c.weight
	}

	// Drivers belong to the ground carriers (and a few to the others for
	// the first and last mile); some have left.
	type driver struct {
		id, carrier     int
		hired, leftDate time.Time
	}
	var drivers []driver
	byCarrier := make([][]int, len(logCarriers))
	for i := range 140 {
		c := r.weighted([]int{34, 6, 28, 5, 3, 18, 6})
		_, first, last := r.person(0.8)
		hired := r.randomDay(date(2012, 1, 1), date(2025, 8, 1))
		var term any
		d := driver{id: i + 1, carrier: c, hired: hired}
		if logCarriers[c].active == 0 || r.chance(0.18) {
			left := r.randomDay(days(hired, 60), days(logSnapshot, -1))
			if left.After(days(hired, 60)) {
				d.leftDate = left
				term = isoDate(left)
			}
		}
		drivers = append(drivers, d)
		byCarrier[c] = append(byCarrier[c], len(drivers)-1)
		b.insert("drivers", d.id, c+1, first, last, pick(r, []string{"A", "A", "B", "B", "B", "C"}), isoDate(hired), term)
	}

	// Customers.
	tiers := []string{"standard", "priority", "enterprise"}
	type customer struct {
		id     int
		volume float64
	}
	var customers []customer
	usedName := map[string]bool{}
	for len(customers) < 320 {
		name := pick(r, logCompanyA) + " " + pick(r, logCompanyB) + " " + pick(r, logCompanyC)
		if usedName[name] {
			continue
		}
		usedName[name] = true
		c := pick(r, logCities)
		t := r.weighted([]int{70, 22, 8})
		cu := customer{id: len(customers) + 1, volume: 0.3 + r.Float64()*r.Float64()*3*float64(t+1)}
		customers = append(customers, cu)
		b.insert("customers", cu.id, name, c.city, c.country, tiers[t], isoDate(r.randomDay(date(2019, 1, 1), date(2025, 6, 30))))
	}
	custW := make([]int, len(customers))
	for i, c := range customers {
		custW[i] = int(c.volume * 100)
	}

	// Shipments created 2023-01-01 … 2025-10-31, growing over time.
	levels := []string{"standard", "express", "overnight"}
	transit := []int{5, 3, 1}
	baseCost := []float64{9.5, 18, 34}
	eventID, parcelID := 0, 0
	for i := range 3200 {
		// Later days are likelier: draw the day from a rising ramp.
		span := int(logSnapshot.Sub(date(2023, 1, 1)).Hours() / 24)
		day := days(date(2023, 1, 1), int(float64(span)*sqrtRand(r)))
		created := day.Add(time.Duration(r.between(6*60, 21*60)) * time.Minute).Add(time.Duration(r.IntN(60)) * time.Second)
		cu := customers[r.weighted(custW)]
		wh := r.weighted(whW)
		ca := r.weighted(carW)
		lvl := r.weighted([]int{62, 28, 10})
		if logCarriers[ca].mode == "ocean" {
			lvl = 0
		}
		dest := pick(r, logCities)
		promised := days(day, transit[lvl]+1)
		if logCarriers[ca].mode == "ocean" {
			promised = days(day, 14)
		}
		age := int(logSnapshot.Sub(day).Hours() / 24)
		status := "delivered"
		switch {
		case age < 1:
			status = "created"
		case age < transit[lvl]+3 && r.chance(0.7):
			status = "in_transit"
		case r.chance(0.035):
			status = "returned"
		case r.chance(0.012):
			status = "lost"
		case r.chance(0.01):
			status = "in_transit"
		}
		var shipDate, delivered, driverID any
		var shipped time.Time
		if status != "created" {
			shipped = days(day, r.weighted([]int{55, 35, 10}))
			if shipped.After(logSnapshot) {
				shipped = logSnapshot
			}
			shipDate = isoDate(shipped)
		}
		var deliveredDay time.Time
		if status == "delivered" {
			late := 0
			if r.chance(0.14) {
				late = r.between(1, 6)
			}
			deliveredDay = days(shipped, max(0, transit[lvl]-r.IntN(2))+late)
			if logCarriers[ca].mode == "ocean" {
				deliveredDay = days(shipped, r.between(10, 18))
			}
			if deliveredDay.After(logSnapshot) {
				deliveredDay = logSnapshot
			}
			delivered = isoDate(deliveredDay)
		}
		if status != "created" && len(byCarrier[ca]) > 0 && r.chance(0.9) {
			// An employed driver of the carrier on the ship day, if any.
			for range 6 {
				d := drivers[byCarrier[ca][r.IntN(len(byCarrier[ca]))]]
				if !d.hired.After(shipped) && (d.leftDate.IsZero() || d.leftDate.After(shipped)) {
					driverID = d.id
					break
				}
			}
		}
		nParcels := 1 + r.weighted([]int{55, 25, 12, 8})
		weight := 0.0
		var parcels [][]any
		for range nParcels {
			parcelID++
			w := money(0.2 + r.Float64()*r.Float64()*28)
			weight += w
			fragile := 0
			if r.chance(0.12) {
				fragile = 1
			}
			parcels = append(parcels, []any{parcelID, i + 1, w, r.between(10, 120), r.between(10, 80), r.between(5, 60), fragile})
		}
		cost := money(baseCost[lvl] + weight*(0.8+0.4*float64(lvl)) + r.Float64()*4)
		if logCarriers[ca].mode == "ocean" {
			cost = money(60 + weight*0.35)
		}
		var declared any
		if r.chance(0.6) {
			declared = money(20 + r.Float64()*r.Float64()*2500)
		}
		b.insert("shipments", i+1, fmt.Sprintf("%s%09d", logCarriers[ca].scac, 100000+i*37), cu.id, wh+1, ca+1, driverID,
			levels[lvl], status, dest.city, dest.country, isoDateTime(created), shipDate, isoDate(promised), delivered,
			cost, declared)
		for _, p := range parcels {
			b.insert("parcels", p...)
		}

		// Tracking events.
		ev := func(t time.Time, typ, city string, note any) {
			eventID++
			b.insert("tracking_events", eventID, i+1, isoDateTime(t), typ, city, note)
		}
		if status == "created" {
			continue
		}
		t := shipped.Add(time.Duration(r.between(7*60, 12*60)) * time.Minute)
		origin := logWarehouses[wh].city
		ev(t, "PICKED_UP", origin, nil)
		ev(t.Add(time.Duration(r.between(60, 300))*time.Minute), "DEPARTED_HUB", origin, nil)
		if status == "in_transit" {
			if r.chance(0.5) {
				ev(t.Add(time.Duration(r.between(600, 1400))*time.Minute), "ARRIVED_HUB", dest.city, nil)
			}
			continue
		}
		if status == "lost" {
			ev(t.Add(time.Duration(r.between(1500, 4000))*time.Minute), "EXCEPTION", dest.city, "parcel not located")
			continue
		}
		end := deliveredDay
		if status == "returned" {
			end = days(shipped, transit[lvl])
		}
		arrive := end.Add(time.Duration(r.between(5*60, 8*60)) * time.Minute)
		if arrive.Before(t) {
			arrive = t.Add(3 * time.Hour)
		}
		ev(arrive, "ARRIVED_HUB", dest.city, nil)
		if r.chance(0.08) || status == "returned" {
			ev(arrive.Add(90*time.Minute), "EXCEPTION", dest.city, pick(r, logNotes))
		}
		out := arrive.Add(time.Duration(r.between(120, 200)) * time.Minute)
		ev(out, "OUT_FOR_DELIVERY", dest.city, nil)
		if status == "returned" {
			ev(out.Add(6*time.Hour), "RETURNED", origin, nil)
			continue
		}
		ev(out.Add(time.Duration(r.between(20, 300))*time.Minute), "DELIVERED", dest.city, nil)
	}
}

// sqrtRand returns a number in [0, 1) whose density rises linearly.
func sqrtRand(r rng) float64 {
	a, c := r.Float64(), r.Float64()
	return max(a, c)
}
