package evaldb

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// airlines follows PostgreSQL's "airlines" demo database (bookings schema)
// on a US network. Times are UTC, ISO text 'YYYY-MM-DD HH:MM:SS'. The data
// is a snapshot taken at airNow: flights before it have departed, arrived
// or been cancelled and have actual times; later ones are scheduled.
var airSchema = []string{
	`CREATE TABLE airports (
  airport_code CHAR(3) NOT NULL PRIMARY KEY,
  airport_name TEXT    NOT NULL,
  city         TEXT    NOT NULL,
  longitude    REAL    NOT NULL,
  latitude     REAL    NOT NULL,
  timezone     TEXT    NOT NULL
)`,
	`CREATE TABLE aircrafts (
  aircraft_code CHAR(3) NOT NULL PRIMARY KEY,
  model         TEXT    NOT NULL,
  range         INTEGER NOT NULL -- maximum flight range, km
)`,
	`CREATE TABLE seats (
  aircraft_code   CHAR(3)     NOT NULL REFERENCES aircrafts (aircraft_code),
  seat_no         VARCHAR(4)  NOT NULL,
  fare_conditions VARCHAR(10) NOT NULL CHECK (fare_conditions IN ('Economy', 'Comfort', 'Business')),
  PRIMARY KEY (aircraft_code, seat_no)
)`,
	`CREATE TABLE flights (
  flight_id           INTEGER     NOT NULL PRIMARY KEY,
  flight_no           CHAR(6)     NOT NULL,
  scheduled_departure TIMESTAMP   NOT NULL,
  scheduled_arrival   TIMESTAMP   NOT NULL,
  departure_airport   CHAR(3)     NOT NULL REFERENCES airports (airport_code),
  arrival_airport     CHAR(3)     NOT NULL REFERENCES airports (airport_code),
  status              VARCHAR(20) NOT NULL CHECK (status IN ('On Time', 'Delayed', 'Departed', 'Arrived', 'Scheduled', 'Cancelled')),
  aircraft_code       CHAR(3)     NOT NULL REFERENCES aircrafts (aircraft_code),
  actual_departure    TIMESTAMP,
  actual_arrival      TIMESTAMP,
  UNIQUE (flight_no, scheduled_departure)
)`,
	`CREATE TABLE bookings (
  book_ref     CHAR(6)        NOT NULL PRIMARY KEY,
  book_date    TIMESTAMP      NOT NULL,
  total_amount NUMERIC(10, 2) NOT NULL -- USD
)`,
	`CREATE TABLE tickets (
  ticket_no      CHAR(13)    NOT NULL PRIMARY KEY,
  book_ref       CHAR(6)     NOT NULL REFERENCES bookings (book_ref),
  passenger_id   VARCHAR(20) NOT NULL,
  passenger_name TEXT        NOT NULL,
  contact_data   TEXT -- JSON: email, phone
)`,
	`CREATE TABLE ticket_flights (
  ticket_no       CHAR(13)       NOT NULL REFERENCES tickets (ticket_no),
  flight_id       INTEGER        NOT NULL REFERENCES flights (flight_id),
  fare_conditions VARCHAR(10)    NOT NULL CHECK (fare_conditions IN ('Economy', 'Comfort', 'Business')),
  amount          NUMERIC(10, 2) NOT NULL, -- USD
  PRIMARY KEY (ticket_no, flight_id)
)`,
	`CREATE TABLE boarding_passes (
  ticket_no   CHAR(13)   NOT NULL,
  flight_id   INTEGER    NOT NULL,
  boarding_no INTEGER    NOT NULL,
  seat_no     VARCHAR(4) NOT NULL,
  PRIMARY KEY (ticket_no, flight_id),
  UNIQUE (flight_id, boarding_no),
  UNIQUE (flight_id, seat_no),
  FOREIGN KEY (ticket_no, flight_id) REFERENCES ticket_flights (ticket_no, flight_id)
)`,
	`CREATE INDEX flights_departure ON flights (departure_airport, scheduled_departure)`,
	`CREATE INDEX ticket_flights_flight ON ticket_flights (flight_id)`,
	`CREATE INDEX tickets_book ON tickets (book_ref)`,
}

type airport struct {
	code, name, city string
	lon, lat         float64
	tz               string
}

var airAirports = []airport{
	{"ATL", "Hartsfield-Jackson Atlanta International Airport", "Atlanta", -84.4281, 33.6367, "America/New_York"},
	{"ORD", "Chicago O'Hare International Airport", "Chicago", -87.9048, 41.9786, "America/Chicago"},
	{"MDW", "Chicago Midway International Airport", "Chicago", -87.7524, 41.7868, "America/Chicago"},
	{"DFW", "Dallas/Fort Worth International Airport", "Dallas", -97.0380, 32.8968, "America/Chicago"},
	{"DAL", "Dallas Love Field", "Dallas", -96.8518, 32.8471, "America/Chicago"},
	{"DEN", "Denver International Airport", "Denver", -104.6737, 39.8617, "America/Denver"},
	{"LAX", "Los Angeles International Airport", "Los Angeles", -118.4085, 33.9416, "America/Los_Angeles"},
	{"JFK", "John F. Kennedy International Airport", "New York", -73.7781, 40.6413, "America/New_York"},
	{"LGA", "LaGuardia Airport", "New York", -73.8740, 40.7769, "America/New_York"},
	{"EWR", "Newark Liberty International Airport", "Newark", -74.1745, 40.6895, "America/New_York"},
	{"SFO", "San Francisco International Airport", "San Francisco", -122.3790, 37.6213, "America/Los_Angeles"},
	{"SEA", "Seattle-Tacoma International Airport", "Seattle", -122.3088, 47.4502, "America/Los_Angeles"},
	{"LAS", "Harry Reid International Airport", "Las Vegas", -115.1523, 36.0840, "America/Los_Angeles"},
	{"MCO", "Orlando International Airport", "Orlando", -81.3081, 28.4312, "America/New_York"},
	{"MIA", "Miami International Airport", "Miami", -80.2870, 25.7959, "America/New_York"},
	{"BOS", "Boston Logan International Airport", "Boston", -71.0096, 42.3656, "America/New_York"},
	{"PHX", "Phoenix Sky Harbor International Airport", "Phoenix", -112.0116, 33.4343, "America/Phoenix"},
	{"IAH", "George Bush Intercontinental Airport", "Houston", -95.3368, 29.9902, "America/Chicago"},
	{"HOU", "William P. Hobby Airport", "Houston", -95.2789, 29.6454, "America/Chicago"},
	{"MSP", "Minneapolis-Saint Paul International Airport", "Minneapolis", -93.2218, 44.8848, "America/Chicago"},
	{"DTW", "Detroit Metropolitan Wayne County Airport", "Detroit", -83.3534, 42.2162, "America/Detroit"},
	{"PHL", "Philadelphia International Airport", "Philadelphia", -75.2424, 39.8744, "America/New_York"},
	{"SLC", "Salt Lake City International Airport", "Salt Lake City", -111.9791, 40.7899, "America/Denver"},
	{"ANC", "Ted Stevens Anchorage International Airport", "Anchorage", -149.9982, 61.1743, "America/Anchorage"},
	{"HNL", "Daniel K. Inouye International Airport", "Honolulu", -157.9251, 21.3187, "Pacific/Honolulu"},
	{"BZN", "Bozeman Yellowstone International Airport", "Bozeman", -111.1530, 45.7775, "America/Denver"},
}

type aircraft struct {
	code, model string
	rangeKm     int
	wide        bool
	// rows per class: business, comfort, economy
	rows [3]int
}

var airAircraft = []aircraft{
	{"789", "Boeing 787-9", 14140, true, [3]int{5, 4, 24}},
	{"773", "Boeing 777-300", 11100, true, [3]int{6, 5, 30}},
	{"752", "Boeing 757-200", 7222, false, [3]int{4, 0, 26}},
	{"738", "Boeing 737-800", 5765, false, [3]int{4, 0, 25}},
	{"320", "Airbus A320-200", 6150, false, [3]int{3, 3, 22}},
	{"321", "Airbus A321-200", 5950, false, [3]int{4, 3, 26}},
	{"319", "Airbus A319-100", 6700, false, [3]int{2, 3, 18}},
	{"E75", "Embraer E175", 3700, false, [3]int{3, 0, 14}},
	{"CR9", "Bombardier CRJ-900", 2956, false, [3]int{3, 0, 16}},
	{"CN1", "Cessna 208 Caravan", 1200, false, [3]int{0, 0, 2}},
}

var fareClasses = []string{"Business", "Comfort", "Economy"}

// seatLetters per class for narrow- and wide-body cabins.
func seatLetters(wide bool, class int) string {
	switch {
	case class == 0 && wide:
		return "ACDGHK"
	case class == 0:
		return "ACDF"
	case wide:
		return "ABCDEFGHJK"
	}
	return "ABCDEF"
}

var airRoutes = [][2]string{
	{"ATL", "ORD"}, {"ATL", "LAX"}, {"ATL", "JFK"}, {"ATL", "MCO"}, {"ATL", "MIA"}, {"ATL", "DFW"}, {"ORD", "LGA"},
	{"ORD", "LAX"}, {"ORD", "SFO"}, {"ORD", "DEN"}, {"ORD", "BOS"}, {"MDW", "LAS"}, {"DFW", "LAX"}, {"DFW", "DEN"},
	{"DAL", "HOU"}, {"DEN", "SEA"}, {"DEN", "PHX"}, {"DEN", "SLC"}, {"JFK", "LAX"}, {"JFK", "SFO"}, {"JFK", "MIA"},
	{"EWR", "SFO"}, {"LGA", "BOS"}, {"SEA", "ANC"}, {"LAX", "HNL"}, {"SFO", "HNL"}, {"MSP", "DTW"}, {"PHL", "MCO"},
	{"PHX", "LAS"}, {"SLC", "LAX"}, {"BOS", "MCO"}, {"IAH", "LAS"}, {"MSP", "DEN"}, {"DTW", "ATL"},
}

var (
	airFirst = date(2025, 6, 1)
	airLast  = date(2025, 9, 15)
	airNow   = time.Date(2025, 8, 15, 14, 30, 0, 0, time.UTC)
)

type flight struct {
	id, route       int
	dep, arr        time.Time
	status          string
	craft           int
	km              float64
	booked, boarded [3]int // tickets and boarding passes per class
	seats           [3]int
}

func distanceKm(a, b airport) float64 {
	const rad = math.Pi / 180
	la1, la2 := a.lat*rad, b.lat*rad
	dla, dlo := la2-la1, (b.lon-a.lon)*rad
	h := math.Sin(dla/2)*math.Sin(dla/2) + math.Cos(la1)*math.Cos(la2)*math.Sin(dlo/2)*math.Sin(dlo/2)
	return 2 * 6371 * math.Asin(math.Sqrt(h))
}

func buildAirlines(b *builder) {
	r := newRNG(2017)
	b.exec(airSchema...)
	byCode := map[string]airport{}
	for _, a := range airAirports {
		b.insert("airports", a.code, a.name, a.city, a.lon, a.lat, a.tz)
		byCode[a.code] = a
	}
	var capacity [][3]int
	for _, c := range airAircraft {
		b.insert("aircrafts", c.code, c.model, c.rangeKm)
		var cap3 [3]int
		row := 1
		for class := range 3 {
			letters := seatLetters(c.wide, class)
			for range c.rows[class] {
				for _, l := range letters {
					b.insert("seats", c.code, fmt.Sprintf("%d%c", row, l), fareClasses[class])
					cap3[class]++
				}
				row++
			}
		}
		capacity = append(capacity, cap3)
	}

	// Routes in both directions, one or two departures a day each.
	type route struct {
		from, to string
		km       float64
		craft    int
		times    []int // minutes after midnight UTC
		nos      []string
	}
	var routes []route
	flightNo := 101
	for _, p := range airRoutes {
		km := distanceKm(byCode[p[0]], byCode[p[1]])
		var craft int
		switch {
		case km > 3500:
			craft = pick(r, []int{0, 1, 2})
		case km > 1800:
			craft = pick(r, []int{2, 3, 4, 5})
		case km > 900:
			craft = pick(r, []int{3, 4, 5, 6})
		default:
			craft = pick(r, []int{6, 7, 8})
		}
		n := 1 + r.IntN(2)
		for _, dir := range [][2]string{{p[0], p[1]}, {p[1], p[0]}} {
			rt := route{from: dir[0], to: dir[1], km: km, craft: craft}
			for k := range n {
				rt.times = append(rt.times, 11*60+k*7*60+r.IntN(24)*15)
				rt.nos = append(rt.nos, fmt.Sprintf("PG%04d", flightNo))
				flightNo += 1 + r.IntN(37)
			}
			routes = append(routes, rt)
		}
	}

	var flights []*flight
	dayCount := int(airLast.Sub(airFirst).Hours()/24) + 1
	byRouteDay := make([][][]int, len(routes))
	for ri, rt := range routes {
		byRouteDay[ri] = make([][]int, dayCount)
		minutes := int(rt.km/780*60) + 30
		minutes -= minutes % 5
		for d := range dayCount {
			for k, tm := range rt.times {
				f := &flight{id: len(flights) + 1, route: ri, craft: rt.craft, km: rt.km, seats: capacity[rt.craft]}
				f.dep = days(airFirst, d).Add(time.Duration(tm) * time.Minute)
				f.arr = f.dep.Add(time.Duration(minutes) * time.Minute)
				var actDep, actArr any
				switch {
				case f.dep.Before(airNow) && r.chance(0.015):
					f.status = "Cancelled"
				case f.dep.Before(airNow):
					delay := []int{r.between(-4, 9), r.between(10, 44), r.between(45, 119), r.between(120, 300)}[r.weighted([]int{60, 25, 10, 5})]
					ad := f.dep.Add(time.Duration(delay) * time.Minute)
					aa := ad.Add(time.Duration(minutes+r.between(-12, 15)) * time.Minute)
					switch {
					case !ad.Before(airNow):
						f.status = "Delayed"
					case !aa.Before(airNow):
						f.status = "Departed"
						actDep = isoDateTime(ad)
					default:
						f.status = "Arrived"
						actDep, actArr = isoDateTime(ad), isoDateTime(aa)
					}
				case f.dep.Before(airNow.Add(24*time.Hour)) && r.chance(0.1):
					f.status = "Delayed"
				case f.dep.Before(airNow.Add(24 * time.Hour)):
					f.status = "On Time"
				case r.chance(0.004):
					f.status = "Cancelled"
				default:
					f.status = "Scheduled"
				}
				flights = append(flights, f)
				byRouteDay[ri][d] = append(byRouteDay[ri][d], f.id)
				b.insert("flights", f.id, rt.nos[k], isoDateTime(f.dep), isoDateTime(f.arr), rt.from, rt.to, f.status,
					airAircraft[rt.craft].code, actDep, actArr)
			}
		}
	}

	// Reverse route of each route: routes come in pairs.
	reverse := func(ri int) int { return ri ^ 1 }
	// A pool of travellers, so that some fly several times.
	type traveller struct{ id, name, contact string }
	var pool []traveller
	for i := range 7000 {
		_, first, last := r.person(0.5)
		name := strings.ToUpper(first + " " + last)
		phone := fmt.Sprintf("+1%03d%07d", r.between(201, 989), r.IntN(10_000_000))
		contact := fmt.Sprintf(`{"phone": "%s"}`, phone)
		if r.chance(0.8) {
			contact = fmt.Sprintf(`{"email": "%s.%s.%d@example.com", "phone": "%s"}`, strings.ToLower(first), strings.ToLower(strings.ReplaceAll(last, "'", "")), 1950+r.IntN(55), phone)
		}
		pool = append(pool, traveller{fmt.Sprintf("%04d %06d", r.IntN(10000), (i*7919+13)%1_000_000), name, contact})
	}
	refs := map[string]bool{}
	ticket := 0
	for range 9000 {
		out := flights[r.IntN(len(flights))]
		legs := []*flight{out}
		if r.chance(0.45) {
			d := int(out.dep.Sub(airFirst).Hours()/24) + r.between(2, 10)
			if d < dayCount {
				if ids := byRouteDay[reverse(out.route)][d]; len(ids) > 0 {
					legs = append(legs, flights[pick(r, ids)-1])
				}
			}
		}
		class := []int{0, 1, 2}[r.weighted([]int{12, 8, 80})]
		nPax := 1 + r.weighted([]int{60, 28, 9, 3})
		for _, f := range legs {
			if capacity[f.craft][class] == 0 {
				class = 2
			}
		}
		full := false
		for _, f := range legs {
			if f.booked[class]+nPax > f.seats[class] {
				full = true
			}
		}
		if full {
			continue
		}
		booked := out.dep.Add(-time.Duration(r.between(1, 60)*24*60+r.IntN(24*60)) * time.Minute)
		if !booked.Before(airNow) {
			booked = airNow.Add(-time.Duration(r.between(60, 30*24*60)) * time.Minute)
		}
		ref := fmt.Sprintf("%06X", r.IntN(1<<24))
		for refs[ref] {
			ref = fmt.Sprintf("%06X", r.IntN(1<<24))
		}
		refs[ref] = true
		prices := make([]float64, len(legs))
		total := 0.0
		for i, f := range legs {
			base := (59 + 0.105*f.km) * (0.8 + 0.4*r.Float64())
			prices[i] = math.Round(base*[]float64{3.1, 1.7, 1}[class]) + 0.99*float64(r.IntN(2))
			total += prices[i] * float64(nPax)
		}
		b.insert("bookings", ref, isoDateTime(booked), money(total))
		for range nPax {
			ticket++
			tno := fmt.Sprintf("0005432%06d", ticket)
			p := pool[r.IntN(len(pool))]
			b.insert("tickets", tno, ref, p.id, p.name, p.contact)
			for i, f := range legs {
				f.booked[class]++
				b.insert("ticket_flights", tno, f.id, fareClasses[class], prices[i])
				if (f.status == "Arrived" || f.status == "Departed") && r.chance(0.97) {
					f.boarded[class]++
					n := f.boarded[0] + f.boarded[1] + f.boarded[2]
					// Seat k of the class: rows of earlier classes come first.
					c := airAircraft[f.craft]
					row := 1
					for k := range class {
						row += c.rows[k]
					}
					letters := seatLetters(c.wide, class)
					k := f.boarded[class] - 1
					seat := fmt.Sprintf("%d%c", row+k/len(letters), letters[k%len(letters)])
					b.insert("boarding_passes", tno, f.id, n, seat)
				}
			}
		}
	}
}
