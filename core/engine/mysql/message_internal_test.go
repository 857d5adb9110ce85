package mysql

import (
	"testing"

	"github.com/go-sql-driver/mysql"
)

// A rehearsal's error names neither the rehearsal database nor the
// throwaway user the scripts ran as: both are random, and a report must
// read the same from one run to the next.
func TestRehearsalMessageNamesNothingRandom(t *testing.T) {
	db := "tablewise_rehearse_661d4b5511fb"
	err := &mysql.MySQLError{Number: 1142, Message: "DROP command denied to user 'tw_rehearse_661d4b5511fb'@'127.0.0.1' for table `tw_other`.`t`"}
	if got, want := message(err, db), "DROP command denied to the rehearsal's user for table `tw_other`.`t`"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
	err = &mysql.MySQLError{Number: 1146, Message: "Table 'tablewise_rehearse_661d4b5511fb.nope' doesn't exist"}
	if got, want := message(err, db), "Table 'nope' doesn't exist"; got != want {
		t.Errorf("message = %q, want %q", got, want)
	}
}
