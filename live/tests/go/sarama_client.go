// A Go application's checks against logsim serve, with Sarama (Debian's
// golang-github-shopify-sarama-dev, 1.22), while the scenario crashes and restarts a broker:
//
//  1. a synchronous producer (acks=all, client.id go-orders) sends 300 keyed records to
//     "payments", one every 25 ms, so that the crash lands among them; each must be
//     acknowledged (Sarama retries across the failover);
//  2. a consumer group of two members (go-readers) reads until it has every record, in offset
//     order within each partition, marking each and committing;
//  3. a second group (go-replay) reads the topic again from the oldest offset: every record,
//     each at the partition and offset it was acknowledged at, with its key and value.
//
// Every wait is bounded. Prints "ok ..." and "FAIL ..." lines; exits 1 when anything failed.
// Usage: sarama_client BOOTSTRAP (host:port,host:port,...)
package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/Shopify/sarama"
)

const (
	topic   = "payments"
	records = 300
)

var fails = 0

func ok(what string)  { fmt.Println("ok   " + what) }
func bad(what string) { fmt.Println("FAIL " + what); fails++ }
func check(cond bool, what string) {
	if cond {
		ok(what)
	} else {
		bad(what)
	}
}

// Sarama 1.22 speaks the protocol of the Kafka version it is told; 2.0 (0.11 or later gives
// record batches) gives Produce v3, Fetch v4, Metadata v5, JoinGroup v1, SyncGroup v0 and, with
// the default offsets retention, OffsetCommit v1.
func config(clientID string) *sarama.Config {
	c := sarama.NewConfig()
	c.Version = sarama.V2_0_0_0
	c.ClientID = clientID
	c.Net.DialTimeout = 5 * time.Second
	c.Metadata.Retry.Max = 20
	c.Metadata.Retry.Backoff = 250 * time.Millisecond
	c.Producer.RequiredAcks = sarama.WaitForAll
	c.Producer.Return.Successes = true
	c.Producer.Retry.Max = 40
	c.Producer.Retry.Backoff = 250 * time.Millisecond
	c.Consumer.Offsets.Initial = sarama.OffsetOldest
	c.Consumer.Offsets.CommitInterval = 200 * time.Millisecond
	c.Consumer.Return.Errors = false
	return c
}

type place struct {
	partition int32
	offset    int64
}

// Each record's key and value by where it was acknowledged.
type acked map[place]string

func produce(addrs []string) acked {
	out := acked{}
	p, err := sarama.NewSyncProducer(addrs, config("go-orders"))
	if err != nil {
		bad("the producer connects: " + err.Error())
		return out
	}
	defer p.Close()
	failed := 0
	for i := 0; i < records; i++ {
		key, value := fmt.Sprintf("order-%d", i), fmt.Sprintf("amount-%d", i*7)
		msg := &sarama.ProducerMessage{Topic: topic, Key: sarama.StringEncoder(key), Value: sarama.StringEncoder(value)}
		partition, offset, err := p.SendMessage(msg)
		if err != nil {
			failed++
			fmt.Printf("note send %s failed: %v\n", key, err)
		} else {
			out[place{partition, offset}] = key + "=" + value
		}
		time.Sleep(25 * time.Millisecond)
	}
	check(len(out) == records && failed == 0, fmt.Sprintf("every record acknowledged with acks=all across the crash (%d of %d, %d failed)", len(out), records, failed))
	return out
}

// A group's reads: what each member got, where, in the order it got them.
type reader struct {
	mu       sync.Mutex
	got      map[place]string
	disorder []string
	last     map[int32]int64 // per partition, the last offset a claim delivered
	want     int
	done     chan struct{}
	once     sync.Once
}

func (r *reader) Setup(s sarama.ConsumerGroupSession) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.last = map[int32]int64{} // a new generation: its claims start wherever the group's commits are
	return nil
}
func (r *reader) Cleanup(sarama.ConsumerGroupSession) error { return nil }
func (r *reader) ConsumeClaim(s sarama.ConsumerGroupSession, c sarama.ConsumerGroupClaim) error {
	for m := range c.Messages() {
		r.mu.Lock()
		if last, seen := r.last[m.Partition]; seen && m.Offset <= last {
			r.disorder = append(r.disorder, fmt.Sprintf("%s-%d offset %d after %d", m.Topic, m.Partition, m.Offset, last))
		}
		r.last[m.Partition] = m.Offset
		r.got[place{m.Partition, m.Offset}] = string(m.Key) + "=" + string(m.Value)
		if len(r.got) >= r.want {
			r.once.Do(func() { close(r.done) })
		}
		r.mu.Unlock()
		s.MarkMessage(m, "")
	}
	return nil
}

// Runs `members` members of `group` until they have read `want` records or `limit` passed.
func consume(addrs []string, group string, members int, want int, limit time.Duration) *reader {
	r := &reader{got: map[place]string{}, last: map[int32]int64{}, want: want, done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for m := 1; m <= members; m++ {
		g, err := sarama.NewConsumerGroup(addrs, group, config(fmt.Sprintf("%s-%d", strings.TrimSuffix(group, "s"), m)))
		if err != nil {
			bad(group + " member connects: " + err.Error())
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer g.Close() // commits what was marked, then leaves the group
			for ctx.Err() == nil {
				if err := g.Consume(ctx, []string{topic}, r); err != nil && ctx.Err() == nil {
					fmt.Printf("note %s: %v\n", group, err)
					time.Sleep(200 * time.Millisecond)
				}
			}
		}()
	}
	select {
	case <-r.done:
	case <-time.After(limit):
	}
	cancel()
	wg.Wait()
	return r
}

func same(a, b acked) (missing, wrong int) {
	for at, want := range a {
		got, seen := b[at]
		if !seen {
			missing++
		} else if got != want {
			wrong++
		}
	}
	return
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: sarama_client BOOTSTRAP")
		os.Exit(2)
	}
	addrs := strings.Split(os.Args[1], ",")
	sent := produce(addrs)

	readers := consume(addrs, "go-readers", 2, records, 60*time.Second)
	missing, wrong := same(sent, readers.got)
	check(missing == 0 && wrong == 0, fmt.Sprintf("group go-readers (2 members) read every acknowledged record at its offset (%d missing, %d different)", missing, wrong))
	check(len(readers.disorder) == 0, fmt.Sprintf("each claim delivered its partition in offset order (%v)", readers.disorder))

	replay := consume(addrs, "go-replay", 1, records, 60*time.Second)
	missing, wrong = same(sent, replay.got)
	check(missing == 0 && wrong == 0, fmt.Sprintf("group go-replay read the topic again from the oldest offset (%d missing, %d different)", missing, wrong))

	// go-readers committed where it stopped: a new member of it starts there, with nothing left.
	again := consume(addrs, "go-readers", 1, 1, 8*time.Second)
	check(len(again.got) == 0, fmt.Sprintf("go-readers' commits hold: a new member of it finds nothing left to read (%d records)", len(again.got)))

	fmt.Printf("%d failed\n", fails)
	if fails > 0 {
		os.Exit(1)
	}
}
